/**
 * What a CLI stage needs around its process besides the adapter's files: the names its
 * binary must answer to on PATH (links in the stage's folder), and, inside the run's OS
 * sandbox, the room the CLI must have to work at all — its config home writable, its
 * model endpoint and weft's run-tools server reachable through the sandbox's proxy.
 */
import { realpathSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { WrapExtras } from '../../core/sandbox/sandbox-provider.js';
import type { CliAdapter } from './cli-adapter.js';

/** The model endpoint each CLI uses when its endpoint variable is not set. */
const DEFAULT_ENDPOINTS: Readonly<Record<string, string>> = {
  ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
  OPENAI_BASE_URL: 'https://api.openai.com/v1',
  GOOGLE_GEMINI_BASE_URL: 'https://generativelanguage.googleapis.com',
};

function hostPort(url: string): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return undefined;
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** The native file behind `binary` (npm's `codex.js` wrapper re-executes the native binary under another argv[0], which a link cannot survive). */
function native(binary: string, adapter: Pick<CliAdapter, 'bundledBinary'>): string {
  const real = realpathSync(binary);
  if (!real.endsWith('.js')) return real;
  const bundled = adapter.bundledBinary?.();
  return bundled !== undefined && !bundled.endsWith('.js') ? realpathSync(bundled) : real;
}

/**
 * Links each alias to the CLI's binary in `<stateDir>/bin`; returns the PATH to give the CLI.
 * @example await linkBinaryAliases(codexAdapter, '/usr/bin/codex', ['codex-linux-sandbox'], stateDir, env.PATH) // '<stateDir>/bin:/usr/bin:…'
 */
export async function linkBinaryAliases(
  adapter: Pick<CliAdapter, 'bundledBinary'>,
  binary: string,
  aliases: readonly string[],
  stateDir: string,
  path: string | undefined,
): Promise<string | undefined> {
  if (aliases.length === 0) return path;
  const folder = join(stateDir, 'bin');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const target = native(binary, adapter);
  for (const alias of aliases) {
    const link = join(folder, alias);
    await rm(link, { force: true });
    await symlink(target, link);
  }
  return path === undefined || path === '' ? folder : `${folder}${delimiter}${path}`;
}

/** The room a CLI stage gets in the run's OS sandbox beyond the run's rules. */
export function cliSandboxExtras(
  adapter: Pick<CliAdapter, 'modelEnvironment'>,
  env: Readonly<Record<string, string | undefined>>,
  runToolsUrl: string,
  stateDir: string,
): WrapExtras {
  const endpointVariable = adapter.modelEnvironment.endpoint;
  const endpoint = env[endpointVariable] ?? DEFAULT_ENDPOINTS[endpointVariable];
  const endpoints = [endpoint === undefined ? undefined : hostPort(endpoint), hostPort(runToolsUrl)].filter((found) => found !== undefined);
  // On the host's loopback (weft's run-tools server, a local model server): forwarded to the same address inside, for clients that ignore HTTP_PROXY.
  const loopback = endpoints.filter((found) => LOOPBACK.has(found.host) && found.host !== '::1').map((found) => found.port);
  // Also through the proxy: clients that honour HTTP_PROXY send loopback requests there too.
  const hosts = endpoints.map((found) => `${found.host}:${found.port}`);
  return { allowWrite: [stateDir], allowHosts: hosts, loopbackPorts: loopback };
}
