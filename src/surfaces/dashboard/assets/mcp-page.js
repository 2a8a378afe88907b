// MCP servers: each with its transport, status, tools and last error; add one (a command or
// a URL) at run time, remove one. Refreshed every few seconds, as servers connect slowly.
import { api, errorText } from './api.js';
import { badge, fill, h, notice } from './dom.js';

const REFRESH_MS = 3000;

export async function renderMcp(root, signal) {
  const message = h('p', { role: 'alert', hidden: true });
  const rows = h('tbody');
  const empty = h('p', { class: 'muted', hidden: true }, 'No MCP servers are configured.');
  root.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'MCP servers')),
    message,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'servers' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Server', 'Status', 'Transport', 'Tools', ''].map((name) => h('th', { scope: 'col' }, name)),
          ),
        ),
        rows,
      ),
    ),
    empty,
    addForm(() => load()),
  );

  let lastDrawn = '';
  const openTools = new Set();

  async function load() {
    try {
      const { servers } = await api('GET', '/mcp/servers');
      if (signal.aborted) return;
      // Redrawn only when something changed, so focus and opened tool lists stay put.
      const drawn = JSON.stringify(servers);
      if (drawn !== lastDrawn)
        fill(
          rows,
          servers.map((server) => serverRow(server, remove, openTools)),
        );
      lastDrawn = drawn;
      empty.hidden = servers.length > 0;
    } catch (error) {
      if (!signal.aborted) notice(message, errorText(error));
    }
  }

  async function remove(name) {
    notice(message, '');
    try {
      await api('DELETE', `/mcp/servers/${encodeURIComponent(name)}`);
      notice(message, `Removed ${name}.`, 'ok');
      await load();
    } catch (error) {
      notice(message, errorText(error));
    }
  }

  await load();
  const timer = setInterval(() => document.visibilityState === 'visible' && void load(), REFRESH_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function serverRow(server, remove, openTools) {
  const tools = server.tool_names ?? [];
  return h(
    'tr',
    { 'data-server': server.name },
    h(
      'td',
      { 'data-label': 'Server' },
      h('strong', {}, server.name),
      h('div', { class: 'muted' }, server.source ?? ''),
      server.error ? h('div', { class: 'error' }, server.error) : null,
    ),
    h('td', { 'data-label': 'Status' }, badge(server.status)),
    h('td', { 'data-label': 'Transport' }, server.transport),
    h(
      'td',
      { 'data-label': 'Tools' },
      tools.length === 0
        ? String(server.tools ?? 0)
        : h(
            'details',
            {
              open: openTools.has(server.name),
              ontoggle: (event) => (event.currentTarget.open ? openTools.add(server.name) : openTools.delete(server.name)),
            },
            h('summary', {}, `${tools.length} tools`),
            h(
              'ul',
              { class: 'mono' },
              tools.map((tool) => h('li', {}, tool)),
            ),
          ),
    ),
    // Only servers added here can be removed here; the others live in a config file.
    h(
      'td',
      {},
      /runtime/.test(server.source ?? '')
        ? h('button', { type: 'button', 'aria-label': `Remove ${server.name}`, onclick: () => remove(server.name) }, 'Remove')
        : h('span', { class: 'muted' }, `Edit ${server.source} to remove`),
    ),
  );
}

/** `KEY=value` (or `Key: value` for headers) lines as an object. */
function pairs(textValue, separator) {
  const result = {};
  for (const line of textValue.split('\n')) {
    const at = line.indexOf(separator);
    if (line.trim() === '') continue;
    if (at < 1) throw new Error(`'${line.trim()}' is not ${separator === '=' ? 'KEY=value' : 'Name: value'}.`);
    result[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return result;
}

function addForm(added) {
  const message = h('p', { role: 'alert', hidden: true });
  const field = (id, label, control, hint) =>
    h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('small', { class: 'muted' }, hint) : null);
  const name = h('input', {
    id: 'mcp-name',
    required: true,
    pattern: '[A-Za-z0-9_\\-]+',
    title: "Letters, digits, '_' and '-'",
    autocomplete: 'off',
  });
  const kind = h(
    'select',
    { id: 'mcp-kind', onchange: () => show() },
    h('option', { value: 'command' }, 'command (stdio)'),
    h('option', { value: 'url' }, 'URL (HTTP)'),
  );
  const command = h('input', { id: 'mcp-command', autocomplete: 'off' });
  const args = h('textarea', { id: 'mcp-args', rows: 2 });
  const env = h('textarea', { id: 'mcp-env', rows: 2 });
  const url = h('input', { id: 'mcp-url', type: 'url' });
  const headers = h('textarea', { id: 'mcp-headers', rows: 2 });
  const persist = h('input', { id: 'mcp-persist', type: 'checkbox' });
  const stdioFields = h(
    'div',
    {},
    field('mcp-command', 'Command', command),
    field('mcp-args', 'Arguments', args, 'one per line'),
    field('mcp-env', 'Environment', env, 'KEY=value, one per line'),
  );
  const httpFields = h(
    'div',
    { hidden: true },
    field('mcp-url', 'URL', url),
    field('mcp-headers', 'Headers', headers, 'Name: value, one per line'),
  );
  const show = () => {
    stdioFields.hidden = kind.value !== 'command';
    httpFields.hidden = kind.value !== 'url';
  };

  async function submit(event) {
    event.preventDefault();
    notice(message, '');
    // Starting a server can take seconds: the form says so and takes no second submit meanwhile.
    submitButton.disabled = true;
    submitButton.textContent = 'Adding…';
    form.setAttribute('aria-busy', 'true');
    try {
      const body =
        kind.value === 'command'
          ? {
              name: name.value.trim(),
              command: command.value.trim(),
              args: args.value
                .split('\n')
                .map((line) => line.trim())
                .filter(Boolean),
              env: pairs(env.value, '='),
            }
          : { name: name.value.trim(), url: url.value.trim(), headers: pairs(headers.value, ':') };
      if (persist.checked) body.persist = true;
      const { server } = await api('POST', '/mcp/servers', body);
      // Added but not started: say why, and keep the fields so the mistake can be fixed.
      if (server.status === 'failed' || server.error)
        notice(
          message,
          `${body.name} was added but did not start: ${server.error ?? server.status}. Fix the command or URL, remove it, and add it again.`,
        );
      else {
        notice(message, `Added ${body.name} (${server.status}, ${server.tools} tools).`, 'ok');
        for (const input of [name, command, args, env, url, headers]) input.value = '';
      }
      await added();
    } catch (error) {
      notice(message, errorText(error));
    } finally {
      submitButton.disabled = false;
      submitButton.textContent = 'Add server';
      form.removeAttribute('aria-busy');
    }
  }

  const submitButton = h('button', { type: 'submit', class: 'primary' }, 'Add server');
  const form = h(
    'form',
    { class: 'card add-server', onsubmit: submit, 'aria-label': 'Add an MCP server' },
    h('h2', {}, 'Add a server'),
    field('mcp-name', 'Name', name),
    field('mcp-kind', 'Kind', kind),
    stdioFields,
    httpFields,
    h('label', { class: 'inline' }, persist, ' Also save it to .mcp.json'),
    message,
    submitButton,
  );
  return form;
}
