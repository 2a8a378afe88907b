/**
 * Turns why a server did not start into one line a person can act on — `command not
 * found: npx — is Node.js on PATH?`, `timed out after 10s — raise startup_timeout` — plus
 * the server's last stderr lines.
 */
import { basename } from 'node:path';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { formatDuration } from '../../core/duration.js';
import { errorMessage } from '../../core/errors.js';
import { redactSecrets } from '../../core/redact.js';

/** Thrown by the connection when `startup_timeout` passes. */
export class StartupTimeout extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`timed out after ${formatDuration(timeoutMs)}`);
    this.name = 'StartupTimeout';
    this.timeoutMs = timeoutMs;
  }
}

/** A startup problem already phrased for people (bad config, missing token…). */
export class StartupProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupProblem';
  }
}

export interface FailureContext {
  /** The executable of a stdio server. */
  command?: string;
  /** The endpoint of an HTTP/SSE server. */
  url?: string;
  /** `exited with code 3` when the process ended. */
  exit?: string;
}

const RUNTIME_HINTS: [RegExp, string][] = [
  [/^(npx|node|npm|pnpm|yarn|corepack)(\.exe|\.cmd)?$/, 'is Node.js on PATH?'],
  [/^(uvx|uv)(\.exe)?$/, 'is uv installed and on PATH?'],
  [/^(python\d*(\.\d+)?|pip\d*|pipx)(\.exe)?$/, 'is Python on PATH?'],
  [/^docker(\.exe)?$/, 'is Docker installed and on PATH?'],
  [/^(bun|bunx)(\.exe)?$/, 'is Bun on PATH?'],
  [/^deno(\.exe)?$/, 'is Deno on PATH?'],
];

function notFoundHint(command: string): string {
  const name = basename(command);
  for (const [pattern, hint] of RUNTIME_HINTS) if (pattern.test(name)) return hint;
  return command.includes('/') ? 'check the path in command' : 'is it installed and on PATH?';
}

const NETWORK_CODE = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b/;

/** The errno code of a network failure, from the error, its causes, or (SSE errors) its message. */
function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    const inMessage = NETWORK_CODE.exec(errorMessage(current))?.[1];
    if (inMessage) return inMessage;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** One line: what went wrong — what to do. */
export function describeStartupFailure(error: unknown, context: FailureContext): string {
  if (error instanceof StartupTimeout) {
    return `timed out after ${formatDuration(error.timeoutMs)}${context.exit ? ` (the server ${context.exit})` : ''} — raise startup_timeout, or check that the server speaks MCP on ${context.url ? 'its url' : 'stdout'}`;
  }
  if (error instanceof StartupProblem) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const syscall = (error as NodeJS.ErrnoException | undefined)?.syscall ?? '';
  if (context.command && syscall.startsWith('spawn')) {
    if (code === 'ENOENT') return `command not found: ${context.command} — ${notFoundHint(context.command)}`;
    if (code === 'EACCES') return `permission denied: ${context.command} — make it executable (chmod +x) or run it through its interpreter`;
  }
  if (context.exit) return `the server ${context.exit} during startup — see its stderr below`;
  if (error instanceof SdkHttpError) {
    const status = error.status;
    if (status === 401 || status === 403)
      return `HTTP ${status} from ${context.url ?? 'the server'} — check headers or bearer_token_env_var, or log in with 'weft mcp login <name>' if it uses OAuth`;
    if (status === 404)
      return `HTTP 404 from ${context.url ?? 'the server'} — check the url (MCP endpoints often end in /mcp, SSE ones in /sse)`;
    if (status !== undefined) return `HTTP ${status} from ${context.url ?? 'the server'}: ${redactSecrets(error.message)}`;
  }
  if (context.url) {
    const network = networkCode(error);
    if (network === 'ECONNREFUSED') return `connection refused: ${context.url} — is the server running?`;
    if (network === 'ENOTFOUND' || network === 'EAI_AGAIN') return `host not found: ${context.url} — check the url`;
    if (network) return `cannot reach ${context.url} (${network}) — check the url and the network`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return 'the server closed the connection during the handshake — see its stderr below';
  }
  if (error instanceof ProtocolError) return `handshake failed: ${redactSecrets(error.message)} — is this an MCP server?`;
  return redactSecrets(errorMessage(error));
}

/** The failure line plus the stderr tail, indented, for errors and status. */
export function withStderrTail(line: string, stderrTail: readonly string[], maxLines = 20): string {
  if (stderrTail.length === 0) return line;
  const shown = stderrTail.slice(-maxLines).map((text) => `    ${redactSecrets(text)}`);
  return `${line}\n  stderr (last ${shown.length} line${shown.length === 1 ? '' : 's'}):\n${shown.join('\n')}`;
}
