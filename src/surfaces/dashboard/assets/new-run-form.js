// "Start a run": pick a workflow, then fill the fields its `[inputs]` declare (each with its
// type, default and description), a goal, labels and a model; the run opens once created.
// Given a run (`from`), the same form is "Run again with changes": open, filled with that
// run's workflow, inputs, goal, labels and model, to edit before starting.
import { api, errorText } from './api.js';
import { fill, h, notice } from './dom.js';

export function newRunForm(from) {
  const message = h('p', { role: 'alert', hidden: true });
  const workflow = h('select', { id: 'new-workflow', name: 'workflow', required: true, onchange: () => showInputs() });
  const inputs = h('fieldset', { class: 'inputs' });
  const goal = h('input', { id: 'new-goal', name: 'goal', type: 'text' });
  const labels = h('input', { id: 'new-labels', name: 'labels', type: 'text', placeholder: 'team=web, ticket=42', autocomplete: 'off' });
  const model = h('input', { id: 'new-model', name: 'model', type: 'text', placeholder: 'provider:model (optional)', autocomplete: 'off' });
  const autoApprove = h('input', { id: 'new-auto-approve', type: 'checkbox' });
  const submitButton = h('button', { type: 'submit', class: 'primary' }, from ? 'Run again' : 'Start');
  let workflows = [];
  let listed;
  const details = h(
    'details',
    {
      class: 'card new-run',
      open: Boolean(from),
      'data-rerun': from?.id,
      ontoggle: () => details.open && void (listed ??= listWorkflows()),
    },
    h('summary', {}, from ? 'Run again with changes' : 'Start a run'),
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
  if (from) listed = listWorkflows();
  return details;

  async function listWorkflows() {
    try {
      ({ workflows } = await api('GET', '/workflows'));
      fill(
        workflow,
        workflows.map((item) => h('option', { value: item.path, disabled: !item.valid }, `${item.path}${item.valid ? '' : ' (invalid)'}`)),
      );
      const firstValid = workflows.find((item) => item.valid);
      if (firstValid) workflow.value = firstValid.path;
      if (from) chooseRunWorkflow();
      showInputs();
      if (from) fillFromRun();
    } catch (error) {
      listed = undefined;
      notice(message, `The workflows could not be listed: ${errorText(error)}`);
    }
  }

  /** The listed workflow the run was made from (paths are listed relative to the served folder; the run has it absolute). */
  function chooseRunWorkflow() {
    const path = from.workflow_path;
    const match = workflows
      .filter((item) => path === item.path || path.endsWith(`/${item.path}`))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (match) workflow.value = match.path;
    else {
      workflow.append(h('option', { value: path }, path));
      workflow.value = path;
    }
  }

  function fillFromRun() {
    for (const control of inputs.querySelectorAll('[data-input]')) {
      const value = from.inputs?.[control.dataset.input];
      if (value === undefined) continue;
      if (control.dataset.type === 'boolean') control.checked = value === true;
      else control.value = typeof value === 'string' ? value : JSON.stringify(value);
    }
    goal.value = from.goal ?? '';
    labels.value = Object.entries(from.labels ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join(', ');
    model.value = from.model ?? '';
    autoApprove.checked = from.auto_approve === true;
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
                value:
                  input.default === null || input.default === undefined
                    ? ''
                    : typeof input.default === 'string'
                      ? input.default
                      : JSON.stringify(input.default),
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
        if (!Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number)))
          throw fieldError(control, `The input "${name}" must be ${type === 'integer' ? 'a whole number' : 'a number'}.`);
        values[name] = number;
      } else if (type === 'array' || type === 'object') {
        try {
          values[name] = JSON.parse(text);
        } catch {
          throw fieldError(
            control,
            `The input "${name}" must be JSON (an ${type}), e.g. ${type === 'array' ? '["a", "b"]' : '{"key": "value"}'}.`,
          );
        }
      } else values[name] = text;
    }
    return values;
  }

  function readLabels() {
    const result = {};
    for (const pair of labels.value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)) {
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
      // Run again where the run ran (its workflow path may be absolute, which only its own folder allows).
      if (from) body.cwd = from.cwd;
      // A workflow the list does not hold has no fields to edit its inputs in: they go as they were.
      if (from && chosen() === undefined) body.inputs = from.inputs ?? {};
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
