// "Start a run": pick a workflow, then fill the fields its `[inputs]` declare (each with its
// type, default and description), a goal, labels and a model; the run opens once created.
import { api, errorText } from './api.js';
import { fill, h, notice } from './dom.js';

export function newRunForm() {
  const message = h('p', { role: 'alert', hidden: true });
  const workflow = h('select', { id: 'new-workflow', name: 'workflow', required: true, onchange: () => showInputs() });
  const inputs = h('fieldset', { class: 'inputs' });
  const goal = h('input', { id: 'new-goal', name: 'goal', type: 'text' });
  const labels = h('input', { id: 'new-labels', name: 'labels', type: 'text', placeholder: 'team=web, ticket=42', autocomplete: 'off' });
  const model = h('input', { id: 'new-model', name: 'model', type: 'text', placeholder: 'provider:model (optional)', autocomplete: 'off' });
  const autoApprove = h('input', { id: 'new-auto-approve', type: 'checkbox' });
  const submitButton = h('button', { type: 'submit', class: 'primary' }, 'Start');
  let workflows = [];
  const details = h(
    'details',
    { class: 'card new-run', ontoggle: () => details.open && void listWorkflows() },
    h('summary', {}, 'Start a run'),
    h(
      'form',
      { onsubmit: submit, novalidate: true },
      h('label', { for: 'new-workflow' }, 'Workflow'),
      workflow,
      inputs,
      h('label', { for: 'new-goal' }, 'Goal (optional)'),
      goal,
      h('label', { for: 'new-labels' }, 'Labels (optional)'),
      labels,
      h('label', { for: 'new-model' }, 'Model (optional)'),
      model,
      h('label', { class: 'inline' }, autoApprove, ' Approve at once (skip the pending step)'),
      message,
      submitButton,
    ),
  );
  return details;

  async function listWorkflows() {
    try {
      ({ workflows } = await api('GET', '/workflows'));
      fill(workflow, workflows.map((item) => h('option', { value: item.path, disabled: !item.valid }, `${item.path}${item.valid ? '' : ' (invalid)'}`)));
      const firstValid = workflows.find((item) => item.valid);
      if (firstValid) workflow.value = firstValid.path;
      showInputs();
    } catch (error) {
      notice(message, `The workflows could not be listed: ${errorText(error)}`);
    }
  }

  function chosen() {
    return workflows.find((item) => item.path === workflow.value);
  }

  /** One field per declared input: a checkbox for booleans, a number field for numbers, JSON text for arrays and objects. */
  function showInputs() {
    const entry = chosen();
    goal.placeholder = entry?.goal ?? '';
    fill(
      inputs,
      (entry?.inputs ?? []).length > 0 ? h('legend', {}, 'Inputs') : null,
      (entry?.inputs ?? []).map((input) => {
        const id = `new-input-${input.name}`;
        const control =
          input.type === 'boolean'
            ? h('input', { id, type: 'checkbox', 'data-input': input.name, 'data-type': 'boolean', checked: input.default === true })
            : h(input.type === 'array' || input.type === 'object' ? 'textarea' : 'input', {
                id,
                'data-input': input.name,
                'data-type': input.type ?? 'string',
                type: input.type === 'number' || input.type === 'integer' ? 'number' : 'text',
                step: input.type === 'integer' ? '1' : input.type === 'number' ? 'any' : undefined,
                required: input.required,
                value: input.default === null || input.default === undefined ? '' : typeof input.default === 'string' ? input.default : JSON.stringify(input.default),
                autocomplete: 'off',
              });
        return h(
          'div',
          { class: 'field' },
          h('label', { for: id }, input.name, input.required ? ' (required)' : ''),
          control,
          input.description ? h('small', { class: 'muted' }, input.description) : null,
        );
      }),
    );
  }

  /** The inputs as the API takes them, or throws naming the field to fix. */
  function readInputs() {
    const values = {};
    for (const control of inputs.querySelectorAll('[data-input]')) {
      const name = control.dataset.input;
      const type = control.dataset.type;
      if (type === 'boolean') {
        values[name] = control.checked;
        continue;
      }
      const text = control.value.trim();
      if (text === '') {
        if (control.required) throw fieldError(control, `Fill in the input "${name}": this workflow needs it.`);
        continue;
      }
      if (type === 'number' || type === 'integer') {
        const number = Number(text);
        if (!Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number))) throw fieldError(control, `The input "${name}" must be ${type === 'integer' ? 'a whole number' : 'a number'}.`);
        values[name] = number;
      } else if (type === 'array' || type === 'object') {
        try {
          values[name] = JSON.parse(text);
        } catch {
          throw fieldError(control, `The input "${name}" must be JSON (an ${type}), e.g. ${type === 'array' ? '["a", "b"]' : '{"key": "value"}'}.`);
        }
      } else values[name] = text;
    }
    return values;
  }

  function readLabels() {
    const result = {};
    for (const pair of labels.value.split(',').map((item) => item.trim()).filter(Boolean)) {
      const at = pair.indexOf('=');
      if (at < 1) throw fieldError(labels, `The label "${pair}" must be key=value, e.g. team=web.`);
      result[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
    return result;
  }

  async function submit(event) {
    event.preventDefault();
    notice(message, '');
    submitButton.disabled = true;
    try {
      const body = { workflow: workflow.value, auto_approve: autoApprove.checked, inputs: readInputs() };
      const labelValues = readLabels();
      if (Object.keys(labelValues).length > 0) body.labels = labelValues;
      if (goal.value.trim()) body.goal = goal.value.trim();
      if (model.value.trim()) body.model = model.value.trim();
      const { run } = await api('POST', '/runs', body);
      location.hash = `#/runs/${run.id}`;
    } catch (error) {
      notice(message, errorText(error));
    } finally {
      submitButton.disabled = false;
    }
  }
}

function fieldError(control, text) {
  control.focus();
  control.setAttribute('aria-invalid', 'true');
  return new Error(text);
}
