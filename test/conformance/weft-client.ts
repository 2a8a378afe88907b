/**
 * The client the MCP conformance suite spawns (`client --command`): connects weft's
 * `McpHub` to the scenario's server (an `http` config for the URL given as the last
 * argument), does what the scenario named in `MCP_CONFORMANCE_SCENARIO` expects — list
 * tools, call a tool through the tool registry, answer elicitations with the schema's
 * defaults — then closes the hub. A protected server is logged into the way
 * `weft mcp login` does it, with the client identity a user would configure: the
 * pre-registered client of `MCP_CONFORMANCE_CONTEXT` when the scenario gives one, else a
 * client ID metadata document URL (used where the authorization server supports it). A
 * tool call refused with 403 `insufficient_scope` logs in again for the larger scope and
 * is retried once. Exits 0 when the scenario's steps succeeded, 1 (with
 * the reason on stderr) otherwise; the suite's own checks decide pass or fail.
 * The test bundles it and starts it through `client-launcher.mjs`; by hand,
 * `MCP_CONFORMANCE_SCENARIO=tools_call node --import tsx weft-client.ts <url>` works too.
 */
import { createLogger, stderrSink } from '../../src/core/logger.js';
import type { McpServerConfig } from '../../src/mcp/config/server-config.js';
import { applyElicitationDefaults } from '../../src/mcp/hub/elicitation-defaults.js';
import { McpHub, qualifiedToolName, type ElicitationHandler } from '../../src/mcp/hub/index.js';
import { loginMcpServer, readOAuthState, stepUpScope } from '../../src/mcp/oauth/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileReadTracker, resultText, type ToolResult } from '../../src/tools/tool.js';

const SERVER = 'conformance';
/** The client ID metadata document URL `auth/basic-cimd` expects as the client_id. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Where the adapter puts a pre-registered client secret, so config names only the variable. */
const CLIENT_SECRET_ENV = 'WEFT_CONFORMANCE_CLIENT_SECRET';
const ID_TOKEN_ENV = 'WEFT_CONFORMANCE_ID_TOKEN';

/** Accepts every form with the requested schema's defaults, as a person pressing "accept" would. */
const acceptDefaults: ElicitationHandler = async ({ params }) => {
  if (params.mode === 'url') return { action: 'decline' };
  return { action: 'accept', content: applyElicitationDefaults(params.requestedSchema) };
};

/** Each scenario's steps after the hub connected; scenarios not listed only connect and list tools. */
const SCENARIOS: Record<string, (client: ConformanceClient) => Promise<void>> = {
  initialize: async () => {},
  tools_call: async (client) => {
    const result = await client.call('add_numbers', { a: 5, b: 3 });
    if (!resultText(result).includes('8')) throw new Error(`add_numbers(5, 3) answered: ${resultText(result)}`);
  },
  'elicitation-sep1034-client-defaults': async (client) => {
    await client.call('test_client_elicitation_defaults', {});
  },
  // The server closes the call's SSE stream after a priming event; the answer arrives on the resumed stream.
  'sse-retry': async (client) => {
    await client.call('test_reconnection', {});
  },
  // Listing needs mcp:basic, calling needs mcp:write too: the call is what triggers the step-up.
  'auth/scope-step-up': async (client) => {
    await client.call('test-tool', {});
  },
};

/** What a browser does with the authorization URL: follow the redirects back to weft's loopback. */
async function browse(url: URL): Promise<void> {
  const response = await fetch(url);
  await response.text();
}

class ConformanceClient {
  readonly registry = new ToolRegistry();
  readonly hub: McpHub;
  readonly storageDir = mkdtempSync(join(tmpdir(), 'weft-conformance-'));
  readonly #logger = createLogger(stderrSink('debug'), 'conformance');

  constructor() {
    this.hub = new McpHub({
      registry: this.registry,
      workspaceRoot: process.cwd(),
      env: process.env,
      logger: this.#logger,
      handlers: { elicitation: acceptDefaults },
      clientVersion: '0.1.0',
      watchdog: false,
      oauth: { storageDir: this.storageDir },
    });
  }

  #config: McpServerConfig | undefined;

  async connect(url: string): Promise<void> {
    const config = httpConfig(url, this.storageDir);
    this.#config = config;
    try {
      await this.hub.start([config]);
    } catch (error) {
      // A protected server: log in the way `weft mcp login` does, then connect again.
      if (!this.hub.serverStatus(SERVER).error?.includes('needs authorization')) throw error;
      await this.#login();
    }
    const status = this.hub.serverStatus(SERVER);
    const tools = this.registry
      .list()
      .filter((tool) => tool.server === SERVER)
      .map((tool) => tool.name);
    this.#logger.info(
      `connected: ${status?.serverInfo?.name ?? '?'} (protocol ${status?.protocolVersion ?? '?'}), tools: ${tools.join(', ') || 'none'}`,
    );
  }

  /** Logs in (for `scope` on top of what the server asks for) and reconnects. */
  async #login(scope?: string): Promise<void> {
    const config = this.#config;
    if (!config) throw new Error('not connected');
    await loginMcpServer({ config, storageDir: this.storageDir, openUrl: browse, ...(scope ? { scope } : {}) });
    await this.hub.removeServer(SERVER);
    await this.hub.start([config]);
  }

  /** Calls a server tool the way agents do; after a 403 insufficient_scope, once more with a token for the larger scope. */
  async call(tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    try {
      return await this.#callOnce(tool, args);
    } catch (error) {
      const granted = (await readOAuthState(this.storageDir, SERVER))?.tokens?.scope;
      const scope = stepUpScope(error, granted);
      if (scope === undefined) throw error;
      this.#logger.info(`${tool}: insufficient scope — logging in again for '${scope}'`);
      await this.#login(scope);
      return this.#callOnce(tool, args);
    }
  }

  async #callOnce(tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    const name = qualifiedToolName(SERVER, tool);
    const registered = this.registry.get(name);
    if (!registered) throw new Error(`tool ${name} is not registered`);
    const result = await registered.execute(args, {
      workspaceRoot: process.cwd(),
      signal: new AbortController().signal,
      readFiles: createFileReadTracker(),
      logger: this.#logger,
    });
    this.#logger.info(`${tool} → ${resultText(result)}`);
    if (result.isError) throw new Error(`${tool} failed: ${resultText(result)}`);
    return result;
  }
}

/**
 * Generous limits: the suite starts all its clients at once, and on a busy 2-core machine
 * a client has waited 25 s for CPU before its first request; the suite's per-client limit
 * (120 s, set by the test) stays the backstop.
 */
function httpConfig(url: string, storageDir: string): McpServerConfig {
  return {
    oauth: clientIdentity(storageDir),
    name: SERVER,
    type: 'http',
    url,
    env: {},
    envVars: [],
    headers: {},
    protocol: 'streamable_http',
    startupTimeoutMs: 100_000,
    toolTimeoutMs: 60_000,
    maxToolTimeoutMs: 100_000,
    enabled: true,
    required: true,
    disabledTools: [],
    sampling: false,
    source: { kind: 'runtime', file: 'conformance' },
  };
}

/** The scenario's pre-registered client (secret via an env variable, as config would name it), else a metadata document URL. */
function clientIdentity(storageDir: string): NonNullable<McpServerConfig['oauth']> {
  const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);
  // The client credentials scenarios: a machine client, configured as `grant = "client_credentials"`.
  if (process.env.MCP_CONFORMANCE_SCENARIO?.startsWith('auth/client-credentials-') && typeof context.client_id === 'string') {
    if (typeof context.private_key_pem === 'string') {
      const privateKeyFile = join(storageDir, 'client-key.pem');
      writeFileSync(privateKeyFile, context.private_key_pem, { mode: 0o600 });
      return { grant: 'client_credentials', clientId: context.client_id, privateKeyFile };
    }
    process.env[CLIENT_SECRET_ENV] = String(context.client_secret);
    return { grant: 'client_credentials', clientId: context.client_id, clientSecretEnv: CLIENT_SECRET_ENV };
  }
  // Cross-app access: the person's IdP sign-in handed over as an ID token in a variable, as `id_token_env` names it.
  if (process.env.MCP_CONFORMANCE_SCENARIO?.startsWith('auth/cross-app-access') && typeof context.client_id === 'string') {
    process.env[CLIENT_SECRET_ENV] = String(context.client_secret);
    process.env[ID_TOKEN_ENV] = String(context.idp_id_token);
    return {
      grant: 'cross_app_access',
      clientId: context.client_id,
      clientSecretEnv: CLIENT_SECRET_ENV,
      idpTokenEndpoint: String(context.idp_token_endpoint),
      idpClientId: String(context.idp_client_id),
      idTokenEnv: ID_TOKEN_ENV,
    };
  }
  if (typeof context.client_id !== 'string') return { clientMetadataUrl: CLIENT_METADATA_URL };
  if (typeof context.client_secret !== 'string') return { clientId: context.client_id };
  process.env[CLIENT_SECRET_ENV] = context.client_secret;
  return { clientId: context.client_id, clientSecretEnv: CLIENT_SECRET_ENV };
}

function parseContext(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  if (!url?.startsWith('http')) {
    process.stderr.write('usage: weft-client.ts <server-url> (with MCP_CONFORMANCE_SCENARIO set)\n');
    return 2;
  }
  const client = new ConformanceClient();
  try {
    await client.connect(url);
    await (SCENARIOS[scenario] ?? (async () => {}))(client);
    return 0;
  } catch (error) {
    process.stderr.write(`weft conformance client (${scenario}): ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await client.hub.close();
    rmSync(client.storageDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
