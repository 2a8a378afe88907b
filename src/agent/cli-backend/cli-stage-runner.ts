/**
 * Runs an agent stage on an external coding CLI (`backend = "cli"`), with everything
 * around it that weft's own agent stages get:
 *
 *     binary = settings path | PATH | the npm package's own      (else: stage error)
 *     start the run-tools MCP server (questions, progress, permissions)
 *     spec = prompt, system, model, max_turns, run's MCP servers, approval rules,
 *            the session of an earlier attempt of this node (resume)
 *     spawn the CLI in the workspace, its own process group, recorded first
 *     each stdout line → adapter parser → transcript events (agent-started once the CLI
 *       names its session; model turns; tool calls) → the run's log
 *     at each answer: pending pair messages go in as the next message, else stdin closes
 *     exit → the answer is the output; else a stage error naming the CLI, its exit code
 *       and the last lines of its stderr; a resume the CLI refuses starts afresh once
 *
 * Cancel, timeout and a lost runner end the CLI's whole process group (`cli-process.ts`,
 * the engine's abandoned-group handling); the engine records a new attempt.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withoutWeftSecrets } from '../../core/child-environment.js';
import { STAGE_PROCESS_ENV } from '../../core/marked-processes.js';
import type { Logger } from '../../core/logger.js';
import type { CliSettings } from '../../core/settings/settings.js';
import type { McpServerConfig } from '../../mcp/config/server-config.js';
import { askStageQuestion } from '../../runs/engine/stage-question.js';
import type { StageResult, StageRun } from '../../runs/engine/stage-context.js';
import { AGENT_EVENT, ENGINE_EVENT, type AgentStartedPayload, type StageProcessStartedPayload } from '../../runs/model/event-types.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import type { AgentNode, CliName, Workflow } from '../../runs/workflow/index.js';
import type { ApprovalRule } from '../../tools/approval-policy.js';
import { stageOutputText } from '../agent-prompt.js';
import { runMessageInbox, type MessageInbox } from '../run-messages.js';
import { messageDeliveredEvent } from '../transcript-events.js';
import type { CliAdapter, CliStageSpec } from './cli-adapter.js';
import { findCliBinary } from './cli-binary.js';
import { cliSandboxExtras, linkBinaryAliases } from './cli-sandbox.js';
import { permissionDecider } from './cli-permission-decider.js';
import { CliBudgetWatch } from './cli-budget-watch.js';
import { startCliProcess, type CliExit } from './cli-process.js';
import { cliFailure } from './cli-failure.js';
import { CliTranscript } from './cli-transcript.js';
import { startRunToolsServer, type RunningRunToolsServer } from './run-tools-server.js';

export interface CliBackendOptions {
  adapters: Readonly<Partial<Record<CliName, CliAdapter>>>;
  /** `[cli.<name>]` and the settings' approval rules, as they apply to a run. */
  settings: (run: RunRecord) => Promise<{ cli: CliSettings; approvalRules: readonly ApprovalRule[] }>;
  /** The run's enabled MCP servers, resolved as weft's own agents get them. */
  mcpServers: (run: RunRecord, workflow: Workflow, workDir: string) => Promise<McpServerConfig[]>;
  /** Where each stage's CLI config home lives (`<dir>/<run>/<node>`), kept across its attempts for resume. */
  stateDir: string;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  clock?: () => number;
}

/** What the agent runner settled before handing the stage over. */
export interface CliStagePlan {
  cli: CliName;
  model: string | undefined;
  prompt: string;
  systemPrompt: string;
  maxTurns: number;
}

type AgentStage = StageRun & { node: AgentNode };

/** The session the last attempt of this node started on the same CLI, from its `agent-started`. */
async function earlierSession(stage: AgentStage, cli: CliName): Promise<string | undefined> {
  const events = await stage.services.runs.ownEvents({ types: [AGENT_EVENT.agentStarted] });
  const prefix = `${stage.node.name}@`;
  const earlier = events.filter(
    (event) =>
      event.stageId !== stage.stageId &&
      event.stageId?.startsWith(prefix) === true &&
      event.payload.cli === cli &&
      typeof event.payload.session === 'string',
  );
  const session = earlier.at(-1)?.payload.session;
  return typeof session === 'string' ? session : undefined;
}

export class CliStageRunner {
  readonly #options: CliBackendOptions;

  constructor(options: CliBackendOptions) {
    this.#options = options;
  }

  async runStage(stage: AgentStage, plan: CliStagePlan): Promise<StageResult> {
    const adapter = this.#options.adapters[plan.cli];
    if (adapter === undefined)
      return { status: 'failed', error: `The '${plan.cli}' CLI backend is not available in this version of weft.` };
    const settings = await this.#options.settings(stage.run);
    const binary = findCliBinary(adapter, settings.cli[plan.cli]?.path, this.#options.env, stage.run.cwd);
    if (!binary.found) return { status: 'failed', error: binary.error };
    const stateDir = join(this.#options.stateDir, stage.run.id, stage.node.name);
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const servers = await this.#options.mcpServers(stage.run, stage.workflow, stage.workDir);
    const runTools = await this.#startRunTools(stage, settings.approvalRules);
    let keepState = false;
    // The config files written for the CLI hold secrets (the run-tools token, MCP servers' headers): gone with the stage.
    const written = new Set<string>();
    try {
      const base = { adapter, binary: binary.path, stateDir, servers, runTools, rules: settings.approvalRules, plan, written };
      const resumeSessionId = adapter.resumes ? await earlierSession(stage, plan.cli) : undefined;
      const first = await this.#attempt(stage, { ...base, resumeSessionId });
      // A session the CLI no longer has (or cannot resume) costs nothing: start afresh, once.
      const result = first.refusedResume ? await this.#attempt(stage, { ...base, resumeSessionId: undefined }) : first;
      keepState = result.result.status === 'cancelled' && stage.control.interruptRequested;
      return result.result;
    } finally {
      await runTools.close();
      // An interrupted stage keeps its folder (the CLI's session, for resuming) but not the config files weft wrote.
      for (const path of keepState ? written : [stateDir]) await rm(path, { recursive: true, force: true }).catch(() => undefined);
      // The run's folder goes with its last stage's (another stage still running keeps it: not empty).
      if (!keepState) await rmdir(dirname(stateDir)).catch(() => undefined);
    }
  }

  #startRunTools(stage: AgentStage, rules: readonly ApprovalRule[]): Promise<RunningRunToolsServer> {
    const deps = {
      append: (events: NewRunEvent[]) => stage.emit(events),
      control: stage.control,
      newId: stage.services.newId,
      whileBlocked: stage.whileBlocked,
      stageId: stage.stageId,
    };
    const decide = permissionDecider({
      rules: [...rules, ...stage.workflow.run.approval],
      autoApprove: stage.run.autoApprove,
      askPerson: async (prompt, tool, signal) =>
        (await askStageQuestion({ kind: 'confirmation', prompt }, AbortSignal.any([signal, stage.signal]), deps, { tool })) === true,
    });
    return startRunToolsServer(
      {
        ask: (question, signal) =>
          askStageQuestion(
            {
              kind: question.options ? 'choice' : 'freeform',
              prompt: question.prompt,
              ...(question.options ? { options: question.options } : {}),
            },
            AbortSignal.any([signal, stage.signal]),
            deps,
          ),
        progress: async (message) => {
          await stage.emit([{ type: ENGINE_EVENT.stageOutput, payload: { progress: message } }]);
        },
        permission: (request, signal) => decide(request, AbortSignal.any([signal, stage.signal])),
      },
      (error) => this.#options.logger.debug(`run tools server of ${stage.run.id}:${stage.stageId}: ${error.message}`),
    );
  }

  async #attempt(
    stage: AgentStage,
    params: {
      adapter: CliAdapter;
      binary: string;
      stateDir: string;
      servers: McpServerConfig[];
      runTools: RunningRunToolsServer;
      rules: readonly ApprovalRule[];
      plan: CliStagePlan;
      resumeSessionId: string | undefined;
      written: Set<string>;
    },
  ): Promise<{ result: StageResult; refusedResume: boolean }> {
    const { adapter, plan } = params;
    const marker = `${stage.run.id}/${stage.stageId}`;
    const sandbox = stage.services.sandbox();
    const env = { ...withoutWeftSecrets(this.#options.env), [STAGE_PROCESS_ENV]: marker };
    const spec: CliStageSpec = {
      prompt: plan.prompt,
      systemPrompt: plan.systemPrompt,
      model: plan.model,
      maxTurns: plan.maxTurns,
      timeoutMs: stage.node.timeoutMs,
      workspaceDir: stage.workDir,
      stateDir: params.stateDir,
      mcpServers: params.servers,
      runTools: params.runTools.server,
      permissions: { rules: [...params.rules, ...stage.workflow.run.approval], autoApprove: stage.run.autoApprove },
      sessionId: randomUUID(),
      resumeSessionId: params.resumeSessionId,
      env,
      interactive: adapter.messageLine !== undefined,
      sandboxed: sandbox !== undefined,
    };
    const invocation = adapter.invocation(spec);
    for (const file of invocation.files) {
      // Config homes (Codex's CODEX_HOME, Gemini CLI's .gemini) are folders inside the stage's directory.
      await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
      params.written.add(file.path);
      await writeFile(file.path, file.text, { mode: 0o600 });
    }
    const path = await linkBinaryAliases(adapter, params.binary, invocation.binaryAliases ?? [], params.stateDir, this.#options.env.PATH);
    const transcript = new CliTranscript(this.#options.clock ?? Date.now);
    const parser = adapter.createParser();
    let inbox: MessageInbox | undefined;
    let started = false;
    const budget = new CliBudgetWatch(stage.budget, stage.signal);

    const onLine = async (line: string) => {
      const parsed = parser.line(line);
      const events = transcript.read(parsed);
      const out: NewRunEvent[] = [];
      if (!started && transcript.session !== undefined) {
        started = true;
        out.push({ type: AGENT_EVENT.agentStarted, payload: this.#startedPayload(adapter, spec, transcript.session) });
      }
      out.push(...events);
      if (out.length > 0) await stage.emit(out);
      await budget.afterLine(out, transcript.runningCalls, transcript.final !== undefined, cli);
      if (!parsed.some((event) => event.kind === 'final')) return;
      if (transcript.final?.isError === false) await this.#nextMessage(stage, adapter, transcript, inbox, cli);
      else cli.closeInput();
    };

    const cli = startCliProcess({
      binary: params.binary,
      args: invocation.args,
      cwd: stage.workDir,
      env: { ...env, ...invocation.env, ...(path === undefined ? {} : { PATH: path }) },
      ...(sandbox === undefined
        ? {}
        : { sandbox, sandboxExtras: cliSandboxExtras(adapter, env, params.runTools.server.url, params.stateDir) }),
      stdin: invocation.stdin.kind === 'messages',
      marker,
      signal: budget.signal,
      beforeStart: async (group) => {
        const payload: StageProcessStartedPayload = { pgid: group.pid, host: group.host, start: group.start, marker };
        const [recorded] = await stage.emit([{ type: ENGINE_EVENT.stageProcessStarted, payload }]);
        inbox = runMessageInbox(stage.services.runs, stage.stageId, recorded?.seq ?? 0);
      },
      onLine,
    });
    if (invocation.stdin.kind === 'messages') cli.send(invocation.stdin.first);
    let exit: CliExit;
    try {
      exit = await cli.exited;
    } catch (error) {
      if (budget.stop !== undefined) return { result: { status: budget.stop.status, error: budget.stop.reason }, refusedResume: false };
      if (stage.signal.aborted) return { result: { status: 'cancelled', error: 'Cancelled' }, refusedResume: false };
      throw error;
    }
    if (budget.stop !== undefined) return { result: { status: budget.stop.status, error: budget.stop.reason }, refusedResume: false };
    const result = this.#result(adapter, exit, transcript, stage.signal.aborted);
    const refusedResume =
      params.resumeSessionId !== undefined && result.status === 'failed' && transcript.turns === 0 && !stage.signal.aborted;
    if (refusedResume)
      this.#options.logger.info(
        `${adapter.displayName} could not resume session ${params.resumeSessionId} for ${stage.stageId}; starting a new session`,
      );
    return { result, refusedResume };
  }

  /** At an answer: messages people sent meanwhile go in as the next message; with none, the session ends. */
  async #nextMessage(
    stage: AgentStage,
    adapter: CliAdapter,
    transcript: CliTranscript,
    inbox: MessageInbox | undefined,
    cli: ReturnType<typeof startCliProcess>,
  ): Promise<void> {
    const messages = (await inbox?.take()) ?? [];
    if (messages.length === 0 || adapter.messageLine === undefined) return cli.closeInput();
    await stage.emit(messages.map((message) => messageDeliveredEvent(transcript.turns + 1, message)));
    cli.send(adapter.messageLine(messages.map((message) => message.text).join('\n\n')));
  }

  #startedPayload(adapter: CliAdapter, spec: CliStageSpec, session: NonNullable<CliTranscript['session']>): AgentStartedPayload {
    const skipped = spec.mcpServers
      .filter((server) => server.type === 'sandbox')
      .map((server) => `MCP server '${server.name}' runs in weft's sandbox, which ${adapter.displayName} cannot start; it is left out.`);
    return {
      kind: 'agent',
      provider: adapter.displayName,
      model: session.model ?? spec.model ?? 'default',
      tools: session.tools ?? [],
      droppedTools: skipped,
      maxTurns: spec.maxTurns ?? 0,
      maxTokens: null,
      cli: adapter.cli,
      session: session.sessionId,
    };
  }

  #result(adapter: CliAdapter, exit: CliExit, transcript: CliTranscript, aborted: boolean): StageResult {
    const final = transcript.final;
    if (aborted) return { status: 'cancelled', ...(final ? { output: final.text } : {}), error: 'Cancelled' };
    if (final !== undefined && !final.isError && exit.exitCode === 0) {
      for (const denial of final.permissionDenials)
        this.#options.logger.info(`${adapter.displayName} was denied ${denial.tool}${denial.callId ? ` (${denial.callId})` : ''}`);
      return { status: 'succeeded', output: stageOutputText(final.text), exitCode: 0 };
    }
    return {
      status: 'failed',
      ...(final ? { output: final.text } : {}),
      exitCode: exit.exitCode,
      error: cliFailure(adapter, exit, transcript),
    };
  }
}
