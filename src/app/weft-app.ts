/**
 * The composition root: the only place that builds infrastructure objects (settings,
 * registry, executor, MCP hub) and wires them into the application services that the
 * surfaces call.
 */
import { join, resolve } from 'node:path';
import { createLogger, stderrSink, type Logger, type LogLevel } from '../core/logger.js';
import { loadSettings, type Settings } from '../core/settings/settings.js';
import { ApprovalPolicy } from '../tools/approval-policy.js';
import { fileArtifactSink } from '../tools/artifact-sink.js';
import { builtinTools } from '../tools/builtin/index.js';
import { ToolRegistry } from '../tools/registry.js';
import { ToolExecutor } from '../tools/tool-executor.js';
import { newId } from '../core/ids.js';
import { Worker } from '../runs/engine/worker.js';
import { RunService } from '../runs/run-service.js';
import { SqliteRunStore } from '../runs/store/sqlite/sqlite-run-store.js';
import { McpConfigService } from './mcp-config-service.js';
import { detachedRunnerLauncher } from './runner-launcher.js';
import { runToolboxFactory } from './run-toolbox.js';
import { McpService } from './mcp-service.js';
import { resolveStorageDir } from './storage-dir.js';
import { ToolService } from './tool-service.js';

export interface WeftAppOptions {
  /** Reported to MCP servers as weft's version. */
  version?: string;
  cwd?: string;
  storageDir?: string;
  env?: Record<string, string | undefined>;
  logLevel?: LogLevel;
}

export interface WeftApp {
  workspaceRoot: string;
  storageDir: string;
  settings: Settings;
  logger: Logger;
  tools: ToolService;
  mcp: McpService;
  mcpConfig: McpConfigService;
  /** The run service over the embedded store (opened on first use). */
  runs(): Promise<RunService>;
  /** A runner that executes queued runs (`weft worker`). */
  worker(options: { maxParallel: number; untilIdle: boolean }): Promise<Worker>;
  close(): Promise<void>;
}

export async function createWeftApp(options: WeftAppOptions = {}): Promise<WeftApp> {
  const env = options.env ?? process.env;
  const workspaceRoot = resolve(options.cwd ?? process.cwd());
  const storageDir = resolveStorageDir(options.storageDir, env);
  const settings = await loadSettings({ storageDir, workspaceRoot });
  const logger = createLogger(stderrSink(options.logLevel ?? settings.logLevel));

  const registry = new ToolRegistry();
  for (const tool of builtinTools({ shellTimeoutMs: settings.shellTimeoutMs })) registry.register(tool);

  const executor = new ToolExecutor({
    registry,
    policy: new ApprovalPolicy(settings.approvalRules),
    approvalMode: { interactive: false, autoApprove: true },
    artifacts: fileArtifactSink(join(storageDir, 'artifacts', 'tool-output')),
    logger,
    outputLimitBytes: settings.outputLimitBytes,
  });

  const version = options.version ?? '0.0.0';
  const mcp = new McpService({ registry, settings, workspaceRoot, env, logger, clientVersion: version, storageDir });
  const launcher = detachedRunnerLauncher(storageDir, env);
  let store: Promise<SqliteRunStore> | undefined;
  const openStore = () => (store ??= SqliteRunStore.open({ storageDir, logger }));
  // Tests shorten leases so a killed runner's run is picked up quickly.
  const leaseMs = Number(env.WEFT_LEASE_MS ?? 15_000);

  return {
    workspaceRoot,
    storageDir,
    settings,
    logger,
    tools: new ToolService(registry, executor, mcp, workspaceRoot),
    mcp,
    mcpConfig: new McpConfigService(workspaceRoot, storageDir),
    runs: async () => new RunService({ store: await openStore(), clock: Date.now, wakeRunners: () => launcher.launch() }),
    worker: async ({ maxParallel, untilIdle }) => {
      // The agent layer (and the AI SDK behind it) loads only when a runner starts, not for every command.
      const { ModelStageRunner } = await import('../agent/index.js');
      return new Worker({
        store: await openStore(),
        workerId: `${process.pid}-${newId()}`,
        logger,
        clock: Date.now,
        newId,
        toolboxFactory: runToolboxFactory({ storageDir, env, logger, version }),
        // Each run reads [llm] from its own project's settings, like its tools and MCP servers.
        agent: new ModelStageRunner({ llmSettings: async (run) => (await loadSettings({ storageDir, workspaceRoot: run.cwd })).llm, env, logger }),
        leaseMs,
        heartbeatMs: Math.max(100, Math.floor(leaseMs / 3)),
        maxParallel,
        pollMs: 200,
        ...(untilIdle ? { idleExitMs: 2000 } : {}),
      });
    },
    close: async () => {
      await mcp.close();
      if (store) await (await store).close();
    },
  };
}
