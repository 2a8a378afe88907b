/**
 * Secret redaction for everything weft prints or stores (events, logs, errors): a secret
 * value becomes `[redacted:NAME]`, NAME saying where it came from. Secrets are the values of
 * environment variables whose names look secret, of variables a config names as holding
 * one (`bearer_token_env_var`, `client_secret_env`, `env_vars`), passwords in URLs held by
 * any variable (`postgres://user:PASS@host`), literal tokens weft learns at run time (the
 * MCP server token, OAuth tokens, API keys) and well-known key shapes. Values shorter
 * than {@link MIN_SECRET_LENGTH} are left alone: they match too much ordinary text.
 */

export const MIN_SECRET_LENGTH = 8;

/** `*_TOKEN`, `*_KEY` (so `*_API_KEY`), `*_SECRET`, anything with PASSWORD/PASSWD. */
const SECRET_NAME = /(?:^|_)(?:TOKEN|KEY|APIKEY|SECRET)$|PASSWORD|PASSWD/i;
/** The password of `scheme://user:password@host`. */
const URL_PASSWORD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:\s]*:([^/?#@\s]+)@/;

/** Well-known key shapes, one pattern so clean text costs one scan; the group that matched names it. */
const KEY_SHAPE =
  /\b(?:(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|(sk-ant-[A-Za-z0-9_-]{16,}|sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{20,})|(gh[pousr]_[A-Za-z0-9]{20,}))/g;

function shapeName(_match: string, bearer: string | undefined, apiKey: string | undefined): string {
  if (bearer !== undefined) return `${bearer}[redacted:bearer-token]`;
  return apiKey !== undefined ? '[redacted:api-key]' : '[redacted:github-token]';
}

/** Secret value → the name it is redacted as; the first name given for a value wins. */
const secrets = new Map<string, string>();
/** Longest first, so a secret that contains another one is replaced whole; rebuilt after a change. */
let longestFirst: [string, string][] | undefined;
let processEnvRead = false;

/** True for names such as `GITHUB_TOKEN`, `OPENAI_API_KEY`, `DB_PASSWORD`. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Registers a literal secret (a token read from a file, a header value) under the name it
 * is shown as.
 *
 * @example registerSecret(token, 'WEFT_MCP_TOKEN'); redactSecrets(`got ${token}`) // → 'got [redacted:WEFT_MCP_TOKEN]'
 */
export function registerSecret(value: string | undefined, name: string): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
  // A JSON text holds the value escaped; stored events are searched in that form too.
  for (const form of new Set([value, JSON.stringify(value).slice(1, -1)])) {
    if (!secrets.has(form)) secrets.set(form, name);
  }
  longestFirst = undefined;
}

/**
 * Registers the secrets of an environment: values of secret-looking names and URL
 * passwords in any value.
 *
 * @example registerEnvironmentSecrets({ DATABASE_URL: 'postgres://app:hunter2hunter2@db/app' }) // 'hunter2hunter2' → [redacted:DATABASE_URL]
 */
export function registerEnvironmentSecrets(env: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name)) registerSecret(value, name);
    const password = URL_PASSWORD.exec(value)?.[1];
    if (password !== undefined) registerEncodedSecret(password, name);
  }
}

/**
 * Registers a percent-encoded secret (a URL password, an OTLP header value) as written and decoded.
 *
 * @example registerEncodedSecret('p%40ss-word-42', 'DATABASE_URL') // 'p%40ss-word-42' and 'p@ss-word-42' → [redacted:DATABASE_URL]
 */
export function registerEncodedSecret(value: string, name: string): void {
  registerSecret(value, name);
  registerSecret(safeDecode(value), name);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function ordered(): [string, string][] {
  if (!processEnvRead) {
    // Read once: a process's own environment does not change under weft, and reading it costs ~70 µs.
    processEnvRead = true;
    registerEnvironmentSecrets(process.env);
  }
  longestFirst ??= [...secrets].sort(([a], [b]) => b.length - a.length);
  return longestFirst;
}

/** @example redactSecrets('Authorization: Bearer abcdefgh12345678') // → 'Authorization: Bearer [redacted:bearer-token]' */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [value, name] of ordered()) {
    if (out.includes(value)) out = out.split(value).join(`[redacted:${name}]`);
  }
  return out.replace(KEY_SHAPE, shapeName);
}

/**
 * Redacts every string (and object key) inside a JSON value; returns the value itself
 * when nothing in it was secret.
 *
 * @example redactJson({ output: `key=${apiKey}` }) // → { output: 'key=[redacted:OPENAI_API_KEY]' }
 */
export function redactJson<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) {
    const items = value.map(redactValue);
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const entry = [redactSecrets(key), redactValue(item)] as const;
    if (entry[0] !== key || entry[1] !== item) changed = true;
    return entry;
  });
  return changed ? Object.fromEntries(entries) : value;
}
