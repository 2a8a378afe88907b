// A pending question as a form: the five kinds with their own controls (yes/no and
// confirmation buttons, choice radios, multi-select checkboxes, freeform text), answered
// with the JSON value the kind takes.
import { api, errorText } from './api.js';
import { h, notice } from './dom.js';

/** The form for `question` of run `runId`; `onAnswered` runs after the API took the answer. */
export function questionForm(runId, question, onAnswered) {
  const message = h('p', { role: 'alert', hidden: true });
  const name = `q-${question.id}`;
  const send = async (answer) => {
    notice(message, '');
    try {
      await api('POST', `/runs/${runId}/answer`, { question_id: question.id, answer });
      onAnswered();
    } catch (error) {
      notice(message, errorText(error));
    }
  };
  let controls;
  switch (question.kind) {
    case 'yes_no':
      controls = [
        h('button', { type: 'button', class: 'primary', onclick: () => send(true) }, 'Yes'),
        h('button', { type: 'button', onclick: () => send(false) }, 'No'),
      ];
      break;
    case 'confirmation':
      controls = [
        h('button', { type: 'button', class: 'primary', onclick: () => send(true) }, 'Confirm'),
        h('button', { type: 'button', onclick: () => send(false) }, 'Decline'),
      ];
      break;
    case 'choice':
      controls = optionForm(question, 'radio', (data) => data.get(name), send);
      break;
    case 'multi_select':
      controls = optionForm(question, 'checkbox', (data) => data.getAll(name), send);
      break;
    default: {
      const text = h('textarea', { name, rows: 3, required: true, 'aria-label': question.prompt });
      const submit = (event) => {
        event.preventDefault();
        void send(text.value);
      };
      controls = h('form', { onsubmit: submit }, text, h('button', { type: 'submit', class: 'primary' }, 'Answer'));
    }
  }
  return h(
    'section',
    { class: 'card question', 'data-question': question.id, 'data-kind': question.kind, 'aria-label': `Question: ${question.prompt}` },
    h('p', { class: 'prompt' }, question.prompt),
    question.answer_hint && question.kind === 'freeform' ? h('p', { class: 'muted' }, question.answer_hint) : null,
    h('div', { class: 'answer' }, controls),
    message,
  );
}

/** Radios or checkboxes, one per option, with an Answer button; `read` takes the answer from the form's data. */
function optionForm(question, type, read, send) {
  const name = `q-${question.id}`;
  const inputs = (question.options ?? []).map((option, index) =>
    h(
      'label',
      { class: 'inline' },
      h('input', { type, name, value: option, required: type === 'radio', checked: type === 'radio' && index === 0 }),
      ` ${option}`,
    ),
  );
  const form = h(
    'form',
    {
      onsubmit: (event) => {
        event.preventDefault();
        void send(read(new FormData(form)));
      },
    },
    h('fieldset', {}, h('legend', { class: 'sr-only' }, question.prompt), inputs),
    h('button', { type: 'submit', class: 'primary' }, 'Answer'),
  );
  return form;
}
