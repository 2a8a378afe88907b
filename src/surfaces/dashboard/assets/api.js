// weft's HTTP API as the dashboard uses it: JSON calls with the session cookie, and a run's
// live event stream (SSE read from fetch, because EventSource cannot listen to every
// `event:` name of an open set of event types).

export class ApiError extends Error {
  constructor(status, code, message, hint) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

/** Where the app goes when the session is gone; set by app.js. */
let onUnauthorized = () => {};
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/**
 * One API call; answers the parsed JSON (or text), throws ApiError with the API's code.
 * @example await api('POST', `/runs/${id}/cancel`, {})
 */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (!response.ok) {
    const error = (await response.json().catch(() => ({}))).error ?? {};
    if (response.status === 401 && path !== '/login') onUnauthorized();
    throw new ApiError(response.status, error.code ?? `HTTP_${response.status}`, error.message ?? response.statusText, error.hint);
  }
  if (response.status === 204) return undefined;
  return (response.headers.get('content-type') ?? '').includes('json') ? response.json() : response.text();
}

/** The text of an error for a person using the dashboard: message, then the hint (hints that speak API or CLI are left out). */
export function errorText(error) {
  if (error instanceof ApiError) return error.hint && !SPEAKS_API.test(error.hint) ? `${error.message} ${error.hint}` : error.message;
  // fetch rejects with a TypeError when no answer came at all.
  if (error instanceof TypeError) return 'The weft server did not answer. Check that weft serve is still running, then try again.';
  return String(error?.message ?? error);
}

/** Hints written for scripts and terminals (API paths, CLI flags), which a dashboard user cannot follow. */
const SPEAKS_API = /\/api\/v1|openapi\.json|\b(GET|POST|DELETE|PUT) \/|--[a-z]|'weft [a-z]/;

/** Splits SSE text into messages; returns the unfinished rest. */
function parseSse(buffer, onMessage) {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop();
  for (const block of blocks) {
    const message = { event: 'message', id: undefined, data: [] };
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') message.event = value;
      else if (field === 'id') message.id = value;
      else if (field === 'data') message.data.push(value);
    }
    if (message.data.length > 0) onMessage(message);
  }
  return rest;
}

/** How long to wait before reconnecting a dropped stream. */
const RECONNECT_MS = 1000;

/**
 * One connection to an SSE route: `onOpen` once the server accepts, `onMessage` for each
 * message; returns when the stream ends, throws ApiError when it is refused.
 */
async function readSse(path, headers, signal, onOpen, onMessage) {
  const response = await fetch(`/api/v1${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal,
    credentials: 'same-origin',
  });
  if (response.status === 401) onUnauthorized();
  if (!response.ok || !response.body)
    throw new ApiError(response.status, `HTTP_${response.status}`, `event stream refused (${response.status})`);
  onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer = parseSse(buffer + value, onMessage);
  }
}

/** Reconnects `connect` after each drop (after `onDrop`) until `signal` aborts or the session or the resource is gone. */
async function reconnecting(connect, onDrop, onGone, signal) {
  while (!signal.aborted) {
    try {
      await connect();
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status === 401) return;
      if (error instanceof ApiError && error.status === 404) return onGone();
    }
    onDrop();
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/**
 * Follows a run's events from `afterSeq` until `signal` aborts, reconnecting with
 * Last-Event-ID after a drop so no event is missed or repeated.
 */
export function followEvents(runId, { afterSeq = 0, onEvent, onState = () => {}, signal }) {
  let lastSeq = afterSeq;
  const connect = () =>
    readSse(
      `/runs/${encodeURIComponent(runId)}/events?after_seq=${lastSeq}`,
      lastSeq > 0 ? { 'last-event-id': String(lastSeq) } : {},
      signal,
      () => onState('live'),
      (message) => {
        const event = JSON.parse(message.data.join('\n'));
        if (typeof event.seq !== 'number' || event.seq <= lastSeq) return;
        lastSeq = event.seq;
        onEvent(event);
      },
    );
  return reconnecting(
    connect,
    () => onState('reconnecting'),
    () => onState('gone'),
    signal,
  );
}

/**
 * Follows the changes of the runs list for `query` (the list's filters) until `signal`
 * aborts: `onChange('run' | 'run-left', run)` for each; `onOpen` each time the stream is
 * (again) live, `onDrop` when it broke (it reconnects from the last change received).
 */
export function followRunList(query, { onChange, onOpen, onDrop, signal }) {
  let lastId;
  const connect = () =>
    readSse(`/runs?${query}`, lastId === undefined ? {} : { 'last-event-id': lastId }, signal, onOpen, (message) => {
      if (message.id !== undefined) lastId = message.id;
      onChange(message.event, JSON.parse(message.data.join('\n')));
    });
  return reconnecting(connect, onDrop, onDrop, signal);
}
