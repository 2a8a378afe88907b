/**
 * Fuzzes `weft serve`'s HTTP API from its own OpenAPI document: every route with hostile
 * path parameters, query strings, JSON bodies (valid, mutated, garbage, deep, oversized)
 * and headers. Invariants after every request: it was answered, never with a 5xx (an
 * unhandled failure), a 4xx carries weft's error body, the server still answers, a
 * refused request left the store as it was, and memory stays under a bound.
 */
import { HANG_UP_ALLOWED_ABOVE_BYTES, send } from './http-client.js';
import { RSS_LIMIT_BYTES, type FuzzReport } from './fuzz-runner.js';
import type { Rng } from './rng.js';
import { MUTATIONS, mutate, validValue, type JsonSchema } from './schema-values.js';
import { rssBytes, storeSnapshot } from './store-probe.js';

interface Operation {
  method: string;
  path: string;
  body?: JsonSchema;
}

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content?: { 'application/json'?: { schema?: JsonSchema } } } }>>;
}

export async function apiOperations(baseUrl: string): Promise<Operation[]> {
  const answer = await send(`${baseUrl}/api/v1/openapi.json`, 'GET', {});
  if (!answer || answer.status !== 200) throw new Error(`GET /api/v1/openapi.json: ${answer?.status} ${answer?.body.slice(0, 300)}`);
  const document = JSON.parse(answer.body) as OpenApi;
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({ method: method.toUpperCase(), path, ...(body ? { body } : {}) });
    }
  }
  return operations;
}

const HOSTILE_SEGMENTS = [
  '..',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%00',
  '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC',
  '@last',
  'x'.repeat(3000),
  '%ff%fe',
  '%F0%9F%98%80',
  '%',
  '?',
  'constructor',
  '__proto__',
  '%0d%0aSet-Cookie:x=1',
];

/** Percent-encodes every byte (encodeURIComponent refuses lone surrogates, which the fuzzer wants to send). */
function pct(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

function pathFor(operation: Operation, rng: Rng): string {
  return operation.path.replace(/\{\w+\}/g, () => (rng.chance(0.7) ? rng.pick(HOSTILE_SEGMENTS) : pct(rng.string(20))));
}

function queryFor(rng: Rng): string {
  if (rng.chance(0.5)) return '';
  const pairs = Array.from(
    { length: rng.int(1, 4) },
    () =>
      `${rng.pick(['limit', 'status', 'cursor', 'after_seq', 'labels', 'format', 'path', 'stream', pct(rng.string(5))])}=${rng.pick(['-1', '1e999', '99999999999999999999', '', '%zz', pct(rng.string(30)), 'x'.repeat(2000), 'true'])}`,
  );
  return `?${pairs.join('&')}`;
}

interface Shaped {
  kind: string;
  body?: Buffer;
  headers: Record<string, string>;
}

function bodyFor(operation: Operation, rng: Rng, big: boolean): Shaped {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const schema = operation.body ?? { type: 'object' };
  const choice = rng.int(0, big ? 6 : 5);
  if (choice === 0) return { kind: 'body-valid', body: Buffer.from(JSON.stringify(validValue(schema, rng))), headers };
  if (choice === 1)
    return {
      kind: 'body-mutated',
      body: Buffer.from(JSON.stringify(mutate(validValue(schema, rng) as Record<string, unknown>, schema, rng.pick(MUTATIONS), rng))),
      headers,
    };
  if (choice === 2)
    return { kind: 'body-garbage', body: Buffer.from(rng.pick(['{', 'null', '[]', '"x"', '{"a":1}{', '\u0000', rng.string(50)])), headers };
  if (choice === 3) return { kind: 'body-deep', body: Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), headers };
  if (choice === 4)
    return {
      kind: 'body-invalid-utf8',
      body: Buffer.concat([Buffer.from('{"token":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
      headers,
    };
  if (choice === 5)
    return {
      kind: 'body-wrong-type',
      body: Buffer.from(JSON.stringify(validValue(schema, rng))),
      headers: {
        'content-type': rng.pick([
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=utf-16',
        ]),
      },
    };
  return { kind: 'body-10mb', body: Buffer.from(JSON.stringify({ text: 'H'.repeat(10 * 1024 * 1024) })), headers };
}

/** Hostile headers: a missing or wrong token, a foreign Host or Origin, a huge header. */
function headersFor(rng: Rng, token: string, host: string): { kind?: string; headers: Record<string, string> } {
  const good = { authorization: `Bearer ${token}` };
  if (rng.chance(0.8)) return { headers: good };
  return rng.pick<{ kind: string; headers: Record<string, string> }>([
    { kind: 'auth-missing', headers: {} },
    { kind: 'auth-wrong', headers: { authorization: 'Bearer nope' } },
    { kind: 'auth-malformed', headers: { authorization: `Basic ${token}` } },
    { kind: 'host-foreign', headers: { ...good, host: 'evil.example' } },
    { kind: 'origin-foreign', headers: { ...good, origin: 'http://evil.example' } },
    { kind: 'header-huge', headers: { ...good, 'x-fuzz': 'h'.repeat(12_000) } },
    { kind: 'cookie-garbage', headers: { cookie: `weft_session=${rng.string(40).replace(/[^\x20-\x7e]/g, '')}; ;;=` } },
    { kind: 'host-ok', headers: { ...good, host } },
  ]);
}

/** Runs `cases` requests (or until `until`) and checks the invariants after each. */
export async function fuzzApi(options: {
  baseUrl: string;
  token: string;
  pid: number;
  storageDir: string;
  rng: Rng;
  seed: number;
  cases?: number;
  until?: number;
  big: boolean;
}): Promise<FuzzReport> {
  const { rng } = options;
  const operations = await apiOperations(options.baseUrl);
  const report: FuzzReport = { target: 'http-api', seed: options.seed, cases: 0, byKind: {}, findings: [], maxRssBytes: 0 };
  const host = new URL(options.baseUrl).host;
  for (let index = 0; ; index++) {
    if (options.cases !== undefined && index >= options.cases) break;
    if (options.until !== undefined && Date.now() >= options.until) break;
    const operation = rng.pick(operations);
    const url = `${options.baseUrl}${pathFor(operation, rng)}${queryFor(rng)}`;
    const shaped =
      operation.method === 'GET' || operation.method === 'DELETE'
        ? { kind: 'no-body', headers: {} as Record<string, string> }
        : bodyFor(operation, rng, options.big);
    const hostile = headersFor(rng, options.token, host);
    const kind = `${operation.method} ${operation.path} ${hostile.kind ?? shaped.kind}`;
    const before = storeSnapshot(options.storageDir);
    const answer = await send(url, operation.method, { ...shaped.headers, ...hostile.headers }, shaped.body, false, false);
    const alive = (await send(`${options.baseUrl}/api/v1/session`, 'GET', { authorization: `Bearer ${options.token}` }))?.status === 200;
    report.cases += 1;
    const tally = (report.byKind[kind] ??= { cases: 0, answered: 0, errors: 0 });
    tally.cases += 1;
    const problems: string[] = [];
    if (!answer) problems.push('no answer');
    else {
      tally.answered += 1;
      if (answer.status >= 400 || answer.status === 0) tally.errors += 1;
      if (answer.status === 0 && (shaped.body?.length ?? 0) <= HANG_UP_ALLOWED_ABOVE_BYTES)
        problems.push(`the server hung up: ${answer.body}`);
      if (answer.status >= 500) problems.push(`HTTP ${answer.status}: ${answer.body.slice(0, 300)}`);
      if (answer.status >= 400 && answer.status < 500 && !/"code"\s*:\s*"[A-Z_]+"/.test(answer.body))
        problems.push(`HTTP ${answer.status} without weft's error body: ${answer.body.slice(0, 200)}`);
      if ((answer.status >= 400 || answer.status === 0) && storeSnapshot(options.storageDir) !== before)
        problems.push(`a refused request (HTTP ${answer.status}) changed the store`);
    }
    if (!alive) problems.push('the server stopped answering');
    const rss = rssBytes(options.pid);
    report.maxRssBytes = Math.max(report.maxRssBytes, rss);
    if (rss > RSS_LIMIT_BYTES) problems.push(`server RSS ${Math.round(rss / 1048576)} MB over the bound`);
    for (const problem of problems)
      report.findings.push({
        target: 'http-api',
        index,
        kind,
        problem,
        sample: `${operation.method} ${url.slice(0, 200)} ${shaped.body?.subarray(0, 120).toString('utf8') ?? ''}`,
      });
    if (!alive) break;
  }
  return report;
}
