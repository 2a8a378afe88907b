/**
 * `weft serve`: the HTTP API, the dashboard and the MCP server on one port, plus a runner
 * for queued runs (unless --no-worker). Same rules as `weft mcp start --http`: a bearer
 * token (generated, stored 0600 and printed once when there is none), Host/Origin checks,
 * and --no-auth only on a loopback host.
 */
import { runScheduleTicks } from '../../../app/services/schedule-ticker.js';
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { registerSecret } from '../../../core/redact.js';
import { withApp } from '../command-context.js';
import { untilInterrupted } from '../interrupt.js';
import { collect } from '../options.js';
import { serverErrorReporter } from '../../shared/server-error-report.js';
import { parsePort } from './mcp-server.js';

export const DEFAULT_SERVE_PORT = 7777;

interface ServeOptions {
  host: string;
  port: string;
  tokenEnv?: string;
  auth: boolean;
  worker: boolean;
  allowedHost: string[];
  maxParallel: string;
}

/** The token from `--token-env VAR`, else the MCP server's (WEFT_MCP_TOKEN or the stored file, created on first use). */
async function serverToken(options: ServeOptions, storageDir: string): Promise<{ token: string; note: string } | undefined> {
  if (!options.auth) return undefined;
  if (options.tokenEnv !== undefined) {
    const token = process.env[options.tokenEnv]?.trim();
    if (!token || token.length < 16)
      throw new WeftError(
        'USAGE',
        `--token-env ${options.tokenEnv}: the variable is ${token ? 'shorter than 16 characters' : 'not set'}; set it to a long random token, e.g. the output of 'openssl rand -hex 32'.`,
      );
    registerSecret(token, options.tokenEnv);
    return { token, note: `bearer token from $${options.tokenEnv}` };
  }
  const { loadServerToken, TOKEN_ENV } = await import('../../mcp-server/token.js');
  const loaded = await loadServerToken(storageDir, process.env);
  if (loaded.source === 'created') {
    // Printed this once, to the person who started the server; it stays in the 0600 file.
    process.stderr.write(`weft: new bearer token (kept in ${loaded.file}, mode 0600):\n${loaded.token}\n`);
  }
  return { token: loaded.token, note: loaded.source === 'env' ? `bearer token from $${TOKEN_ENV}` : `bearer token in ${loaded.file}` };
}

async function serve(options: ServeOptions, command: Command): Promise<void> {
  const port = parsePort(options.port);
  const maxParallel = Number(options.maxParallel);
  if (!Number.isInteger(maxParallel) || maxParallel < 1)
    throw new WeftError('USAGE', `--max-parallel must be a whole number ≥ 1, not '${options.maxParallel}'.`);
  const [{ isLoopbackHost }, http, { version }] = await Promise.all([
    import('../../shared/loopback.js'),
    import('../../http/index.js'),
    import('../../../core/package-version.js'),
  ]);
  if (!options.auth && !isLoopbackHost(options.host)) {
    throw new WeftError(
      'USAGE',
      `--no-auth is only allowed on a loopback host (127.0.0.1, localhost, ::1), not '${options.host}': anyone who can reach it could run commands.`,
    );
  }
  await withApp(
    command,
    async (app) => {
      const token = await serverToken(options, app.storageDir);
      const worker = options.worker ? await app.worker({ maxParallel, untilIdle: false }) : undefined;
      const server = await http.startWeftServer({
        host: options.host,
        port,
        token: token?.token,
        allowedHosts: options.allowedHost,
        deps: {
          runs: app.runs,
          schedules: app.schedules,
          triggers: app.triggers,
          mcp: app.mcpRegistry,
          workspaceRoot: app.workspaceRoot,
          storageDir: app.storageDir,
          readArtifact: app.readArtifact,
        },
        version,
        onError: serverErrorReporter('weft: serve'),
      });
      process.stderr.write(
        `weft serve listening on ${server.url} — dashboard ${server.url}/, API ${server.url}/api/v1, MCP ${server.url}/mcp (${token?.note ?? 'no authentication'}${worker ? '' : '; no worker'})\n`,
      );
      try {
        await untilInterrupted(
          async (signal) => {
            // The server's worker ticks the schedules; with --no-worker, a weft worker elsewhere does.
            const ticks = worker
              ? runScheduleTicks(await app.schedules(), signal, app.logger, { settings: app.settings, workspaceRoot: app.workspaceRoot })
              : undefined;
            await (worker
              ? worker.run(signal)
              : new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
            await ticks;
          },
          ['SIGINT', 'SIGTERM'],
        );
      } finally {
        await server.close();
      }
    },
    // --no-worker means no runner at all here, detached ones included: the hosts meant to run are elsewhere.
    { runners: options.worker ? 'in-process' : 'none' },
  );
}

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the HTTP API (/api/v1), the dashboard (/) and the MCP server (/mcp) on one port, and execute queued runs')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_SERVE_PORT))
    .option('--token-env <var>', 'read the bearer token from this environment variable')
    .option('--no-auth', 'serve without a bearer token (allowed on a loopback host only)')
    .option('--no-worker', 'do not execute queued runs here (leave them to weft worker)')
    .option('--max-parallel <n>', 'runs executed at once by the worker', '8')
    .option('--allowed-host <name>', 'another hostname clients may use in Host/Origin headers (repeatable)', collect, [])
    .addHelpText(
      'after',
      '\nClients send "Authorization: Bearer <token>"; the dashboard logs in with the token once (an HttpOnly cookie).\nWithout --token-env the token is $WEFT_MCP_TOKEN, else <storage dir>/mcp-server-token (created and printed on first use, mode 0600).',
    )
    .action(async (options: ServeOptions, command: Command) => serve(options, command));
}
