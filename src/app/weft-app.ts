/**
 * The composition root: the only place that builds infrastructure objects (settings,
 * registry, executor, MCP hub, run store) and wires them into the application services
 * that the surfaces call — for the CLI, runners (`worker()`), the MCP server (`runs()`
 * only) and the library alike, all from the one `cwd` and storage dir. Each service is
 * built — and its modules loaded — on first use, so `weft ps` never loads the MCP SDK,
 * `weft tools list` never opens the database, and `weft mcp start` loads neither the
 * registry nor the hub.
 */
import { join, resolve } from 'node:path';
import { createLogger, stderrSink, type Logger, type LogLevel } from '../core/logger.js';
import { registerEnvironmentSecrets } from '../core/redact.js';
import { loadSettings, type Settings } from '../core/settings/settings.js';
import type { RunRecord } from '../runs/model/run-record.js';
import type { Worker } from '../runs/engine/worker.js';
import { workspaceHost } from './host/workspace-host.js';
import type { WorkspaceHost } from '../runs/engine/run-files.js';
import type { RunService } from './services/run-service.js';
import type { ScheduleService } from './services/schedule-service.js';
import type { TriggerService } from './services/trigger-service.js';
import type { WorkspaceService } from './services/workspace-service.js';
import type { McpConfigService } from './services/mcp-config-service.js';
import type { McpRegistry } from './services/mcp-registry.js';
import type { McpService } from './services/mcp-service.js';
import type { MigrationReport } from './services/store-migration.js';
import { prepareStorageDir, resolveStorageDir } from './host/storage-dir.js';
import type { TerminalPrompter } from './mcp-host/terminal-prompter.js';
import type { ToolService } from './services/tool-service.js';
import { registerExporterHeaderSecrets, startTracingIfWanted } from './telemetry/tracing-setup.js';

export interface WeftAppOptions {
  /** Reported to MCP servers as weft's version. */
  version?: string;
  cwd?: string;
  storageDir?: string;
  env?: Record<string, string | undefined>;
  logLevel?: LogLevel;
  /**
   * The person at the terminal, who answers MCP servers' elicitation and (with an `ask`
   * rule) approves their sampling. Default: nobody — requests are declined with a line on stderr.
   */
  terminal?: TerminalPrompter;
  /**
   * Who executes queued runs: `detached` (default) starts a `weft worker --until-idle`
   * process when a run is queued; `in-process` leaves them to this process's own worker
   * (`weft serve`), which claims them on the store's change notices; `none` starts nothing
   * (`weft serve --no-worker`: the runs wait for a `weft worker` elsewhere).
   */
  runners?: 'detached' | 'in-process' | 'none';
}

export interface WeftApp {
  workspaceRoot: string;
  storageDir: string;
  settings: Settings;
  /** Where this host keeps run workspaces (`WEFT_WORKSPACE_ROOT`, `[workspace] root`). */
  workspaceHost: WorkspaceHost;
  logger: Logger;
  /** Built-in and MCP tools for `weft tools …`. */
  tools(): Promise<ToolService>;
  /** The configured MCP servers and the hub that connects them. */
  mcp(): Promise<McpService>;
  /** Adding and removing MCP server entries in config files. */
  mcpConfig(): Promise<McpConfigService>;
  /** The run service over the embedded store. */
  runs(): Promise<RunService>;
  /** Diff, rewind, fork and merge of runs' workspaces on this host. */
  workspaces(): Promise<WorkspaceService>;
  /** Schedules (`weft schedule`, `/api/v1/schedules`) and the tick workers run. */
  schedules(): Promise<ScheduleService>;
  /** Webhook triggers (`weft trigger`, `POST /api/v1/triggers/{name}`). */
  triggers(): Promise<TriggerService>;
  /** MCP servers added and removed at runtime, beside the configured ones (`weft serve`). */
  mcpRegistry(): Promise<McpRegistry>;
  /** Copies the SQLite store of the storage dir into PostgreSQL (`weft store migrate`). */
  migrateStore(url: string): Promise<MigrationReport>;
  /** A full tool output kept in the shared database (`weft store artifact`). */
  readArtifact(ref: string): Promise<string>;
  /** A runner that executes queued runs (`weft worker`); `sameEnvironment` limits it to runs created with this environment. */
  worker(options: { maxParallel: number; untilIdle: boolean; sameEnvironment?: boolean }): Promise<Worker>;
  close(): Promise<void>;
}

/** Memoises an async factory: built once, on the first call. */
function once<T>(build: () => Promise<T>): { get: () => Promise<T>; built: () => Promise<T> | undefined } {
  let value: Promise<T> | undefined;
  return { get: () => (value ??= build()), built: () => value };
}

export async function createWeftApp(options: WeftAppOptions = {}): Promise<WeftApp> {
  const env = options.env ?? process.env;
  registerEnvironmentSecrets(env);
  registerExporterHeaderSecrets(env);
  const workspaceRoot = resolve(options.cwd ?? process.cwd());
  const storageDir = prepareStorageDir(resolveStorageDir(options.storageDir, env));
  const settings = await loadSettings({ storageDir, workspaceRoot });
  const logger = createLogger(stderrSink(options.logLevel ?? settings.logLevel));
  const version = options.version ?? '0.0.0';
  // Tests shorten leases so a killed runner's run is picked up quickly.
  const leaseMs = Number(env.WEFT_LEASE_MS ?? 15_000);

  // Traces are exported by the processes that do traced work (runners, tool calls), not by `weft ps`.
  const tracing = once(() => startTracingIfWanted(env, { version, onError: (message) => logger.warn(message) }));

  // The registry (built-ins, then the MCP servers' tools) and its executor: `weft tools`, `weft mcp`.
  const toolbox = once(async () => {
    const [{ buildToolbox }, { fileArtifactSink }] = await Promise.all([
      import('../tools/toolbox.js'),
      import('../tools/artifact-sink.js'),
    ]);
    return buildToolbox({
      builtins: { shellTimeoutMs: settings.shellTimeoutMs, webFetchAllowHosts: settings.webFetchAllowHosts },
      rules: settings.approvalRules,
      approvalMode: { interactive: false, autoApprove: true },
      artifacts: fileArtifactSink(resolve(storageDir, 'artifacts', 'tool-output')),
      logger,
      outputLimitBytes: settings.outputLimitBytes,
    });
  });

  const mcp = once(async () => {
    const [{ McpService }, { terminalHubHandlers }, { detachedTerminal }] = await Promise.all([
      import('./services/mcp-service.js'),
      import('./mcp-host/terminal-bridges.js'),
      import('./mcp-host/terminal-prompter.js'),
    ]);
    const handlers = terminalHubHandlers({ terminal: options.terminal ?? detachedTerminal(), settings, env, logger });
    return new McpService({
      registry: (await toolbox.get()).registry,
      settings,
      workspaceRoot,
      env,
      logger,
      clientVersion: version,
      storageDir,
      handlers,
    });
  });

  const tools = once(async () => {
    const { ToolService } = await import('./services/tool-service.js');
    const { registry, executor } = await toolbox.get();
    await tracing.get();
    return new ToolService(registry, executor, await mcp.get(), workspaceRoot);
  });

  const opened = once(async () => {
    const { openStore } = await import('./host/open-store.js');
    return openStore({ storageDir, env, settings, logger });
  });
  const store = { get: async () => (await opened.get()).store, built: async () => (await opened.built())?.store };

  // Loaded when a run's sandbox is first shown (inspect, run, the run page), not for every command.
  const sandboxView = async (run: RunRecord) =>
    (await import('./services/run-sandbox-view.js')).runSandboxView(
      { storageDir, workspaceRoot: workspaceHost(storageDir, settings, env).root, env },
      run,
    );
  // `[run.concurrency]` defaults come from the settings of each run's own directory, as its `[llm]` does.
  const concurrencyDefaults = async (cwd: string) =>
    cwd === workspaceRoot ? settings.runConcurrency : (await loadSettings({ storageDir, workspaceRoot: cwd })).runConcurrency;
  const runs = once(async () => {
    if (options.runners === 'in-process' || options.runners === 'none') {
      const { RunService } = await import('./services/run-service.js');
      return new RunService({
        store: await store.get(),
        clock: (await opened.get()).clock,
        wakeRunners: () => undefined,
        logger,
        workspaces: workspaceHost(storageDir, settings, env),
        sandboxView,
        concurrencyDefaults,
      });
    }
    const [{ RunService }, { detachedRunnerLauncher }, { environmentFingerprint }] = await Promise.all([
      import('./services/run-service.js'),
      import('./host/runner-launcher.js'),
      import('./host/environment-fingerprint.js'),
    ]);
    const launcher = detachedRunnerLauncher(storageDir, env);
    let fingerprint: string | undefined;
    // Only creators need it: `weft ps` neither computes it nor creates the key.
    const envFingerprint = () => (fingerprint ??= environmentFingerprint(storageDir, env));
    return new RunService({
      store: await store.get(),
      clock: (await opened.get()).clock,
      wakeRunners: () => launcher.launch(),
      envFingerprint,
      logger,
      workspaces: workspaceHost(storageDir, settings, env),
      sandboxView,
      concurrencyDefaults,
    });
  });

  // Runs made by schedules and triggers: created where the tick or the webhook runs; the
  // process's own worker (or the runners `runs()` wakes) executes them.
  const scheduledRuns = once(async () => {
    if (options.runners === 'in-process') return runs.get();
    const { RunService } = await import('./services/run-service.js');
    // A worker's tick: its own claim loop sees the new run; starting another runner would only compete with it.
    return new RunService({
      store: await store.get(),
      clock: (await opened.get()).clock,
      wakeRunners: () => undefined,
      logger,
      workspaces: workspaceHost(storageDir, settings, env),
      concurrencyDefaults,
    });
  });
  const schedules = once(async () => {
    const { ScheduleService } = await import('./services/schedule-service.js');
    return new ScheduleService({
      store: (await opened.get()).schedules,
      runs: scheduledRuns.get,
      clock: (await opened.get()).clock,
      logger,
    });
  });
  const triggers = once(async () => {
    const { TriggerService } = await import('./services/trigger-service.js');
    return new TriggerService({ store: (await opened.get()).schedules, runs: runs.get, clock: (await opened.get()).clock, env });
  });

  const mcpConfig = async () => {
    const { McpConfigService } = await import('./services/mcp-config-service.js');
    return new McpConfigService(workspaceRoot, storageDir, env);
  };

  const mcpRegistry = once(async () => {
    const [{ McpRegistry }, { homedir }] = await Promise.all([import('./services/mcp-registry.js'), import('node:os')]);
    return new McpRegistry({
      store: await store.get(),
      mcp: await mcp.get(),
      mcpConfig: await mcpConfig(),
      workspaceRoot,
      homeDir: homedir(),
      env,
      logger,
    });
  });

  return {
    workspaceRoot,
    storageDir,
    settings,
    workspaceHost: workspaceHost(storageDir, settings, env),
    logger,
    tools: tools.get,
    mcp: mcp.get,
    mcpConfig,
    mcpRegistry: mcpRegistry.get,
    runs: runs.get,
    workspaces: async () => (await runs.get()).workspaces,
    schedules: schedules.get,
    triggers: triggers.get,
    migrateStore: async (url) => {
      const { migrateStoreToPostgres } = await import('./services/store-migration.js');
      return migrateStoreToPostgres({ storageDir, url, logger });
    },
    readArtifact: async (ref) => (await opened.get()).readArtifact(ref),
    worker: async ({ maxParallel, untilIdle, sameEnvironment = false }) => {
      // The agent layer (and the AI SDK behind it) loads only when a runner starts, not for every command.
      const [
        { Worker },
        { runnerId },
        { ModelStageRunner, CliStageRunner, cliAdapters },
        { runToolboxFactory, loadRunMcpServers },
        { runSettingsReader },
        { newId },
        { environmentFingerprint },
        { withStoredAccessTokens },
        { runSandboxFactory },
      ] = await Promise.all([
        import('../runs/engine/worker.js'),
        import('../runs/engine/runner-id.js'),
        import('../agent/index.js'),
        import('./runner/run-toolbox.js'),
        import('./runner/run-settings.js'),
        import('../core/ids.js'),
        import('./host/environment-fingerprint.js'),
        import('../mcp/oauth/stored-token-headers.js'),
        import('./runner/run-sandbox.js'),
      ]);
      await tracing.get();
      const runSettings = runSettingsReader(storageDir);
      const { store: runStore, artifacts, clock, modelCalls } = await opened.get();
      return new Worker({
        store: runStore,
        workerId: runnerId(newId()),
        logger,
        clock,
        newId,
        toolboxFactory: runToolboxFactory({ storageDir, settings: runSettings, env, logger, version, catalogue: runStore, artifacts }),
        sandboxFactory: runSandboxFactory({ storageDir, settings: runSettings, env }),
        // Each run reads [llm] from its own project's settings, like its tools and MCP servers.
        agent: new ModelStageRunner({
          llmSettings: async (run) => (await runSettings(run)).llm,
          env,
          logger,
          // Agent stages on Claude Code, Codex or Gemini CLI (`backend = "cli"`): same settings, MCP servers and approval rules.
          cli: new CliStageRunner({
            adapters: cliAdapters,
            settings: runSettings,
            // The CLI connects to the servers itself: it gets the access tokens `weft mcp login` stored.
            mcpServers: async (run, workflow, workDir) =>
              withStoredAccessTokens(
                (
                  await loadRunMcpServers(
                    { storageDir, env, settings: await runSettings(run) },
                    run,
                    workflow,
                    logger.child(`run ${run.id}`),
                    workDir,
                  )
                ).filter((server) => server.enabled),
                storageDir,
                Date.now(),
              ),
            stateDir: join(storageDir, 'cli-stages'),
            env,
            logger,
          }),
        }),
        leaseMs,
        heartbeatMs: Math.max(100, Math.floor(leaseMs / 3)),
        maxParallel,
        pollMs: 200,
        // A runner started on demand gives up on a store gone for a minute (or 4 leases) rather than live on alone.
        ...(untilIdle ? { idleExitMs: 2000, storeGiveUpMs: Number(env.WEFT_STORE_GIVE_UP_MS ?? Math.max(60_000, 4 * leaseMs)) } : {}),
        ...(sameEnvironment ? { envFingerprint: environmentFingerprint(storageDir, env) } : {}),
        workspaces: workspaceHost(storageDir, settings, env),
        modelCalls,
      });
    },
    close: async () => {
      try {
        await (await mcp.built())?.close();
        await (await store.built())?.close();
      } finally {
        // Last, so the spans of closing MCP servers are in; a runner's spans leave before it exits.
        await (await tracing.built()?.catch(() => undefined))?.shutdown();
      }
    },
  };
}
