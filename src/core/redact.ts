/**
 * Secret redaction for everything weft prints or stores: values of environment variables
 * whose names look secret, bearer tokens and well-known key shapes.
 */

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
const KEY_SHAPES: RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bsk-ant-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
];

const registered = new Set<string>();

/** Registers a literal secret (a token read from a file, a header value) for redaction. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) registered.add(value);
}

function secretEnvValues(): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(process.env)) {
    if (value && value.length >= 6 && SECRET_NAME.test(name)) values.push(value);
  }
  return values;
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const value of [...registered, ...secretEnvValues()]) {
    if (out.includes(value)) out = out.split(value).join('[REDACTED]');
  }
  for (const shape of KEY_SHAPES) out = out.replace(shape, (match) => (match.startsWith('Bearer') ? 'Bearer [REDACTED]' : '[REDACTED]'));
  return out;
}
