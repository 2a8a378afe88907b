/**
 * Runs `agent` and `prompt` stages for the engine: picks the model (node, run, workflow,
 * settings), builds the prompts, offers the run's tools (filtered by the node's `tools`,
 * adapted to the provider) and runs the agent loop; the final text is the stage output.
 * A configuration problem (no model, unknown provider, missing key) fails the stage
 * with the message that says how to fix it.
 */
import { RUN_EVENT, PAIR_END_REASON } from '../runs/model/event-types.js';
import picomatch from 'picomatch';
import { WeftError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { LlmSettings } from '../core/settings/settings.js';
import { callOriginOf, type AgentStageRunner, type StageResult, type StageRun } from '../runs/engine/stage-context.js';
import type { RunRecord } from '../runs/model/run-record.js';
import type { AgentNode, PromptNode, Workflow } from '../runs/workflow/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createFileReadTracker, type Tool } from '../tools/tool.js';
import { runAgentLoop, type AgentLoopOutcome } from './agent-loop.js';
import { firstMessage, stageOutputText, systemPrompt } from './agent-prompt.js';
import type { ModelClient } from './model-client.js';
import { limitModelCalls } from './limited-model-client.js';
import { checkModelConfig, createModelClient, type ModelClientOptions } from './providers/create-model-client.js';
import type { ModelSource } from './providers/model-selection.js';
import { runMessageInbox } from './run-messages.js';
import { DEFAULT_MAX_TURNS, type AgentLimits } from './stop-condition.js';
import { adaptTools, type AdaptedTools } from './tool-schemas.js';
import { agentStartedEvent } from './transcript-events.js';
import { endAgentSpan, startAgentSpan } from './agent-tracing.js';
import { contextWith } from '../core/telemetry/tracing.js';
import { cliStagePlan, stageCli } from './cli-backend/cli-stage-plan.js';
import type { CliStageRunner } from './cli-backend/cli-stage-runner.js';

export interface AgentRunnerOptions {
  /** `[llm]` as it applies to a run (its project's settings over the user's). */
  llmSettings: (run: RunRecord) => Promise<LlmSettings>;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** Replaces provider construction (tests, other model clients). */
  createClient?: (sources: readonly ModelSource[], options: ModelClientOptions) => ModelClient;
  /** Runs agent stages whose backend is an external CLI (`backend = "cli"`); without it they fail clearly. */
  cli?: CliStageRunner;
}

function toolFilter(patterns: readonly string[] | undefined): (tool: Tool) => boolean {
  if (patterns === undefined) return () => true;
  const matchers = patterns.map((pattern) => picomatch(pattern, { dot: true, nonegate: true, noextglob: true }));
  return (tool) => matchers.some((matches) => matches(tool.name));
}

function limitsFor(stage: StageRun & { node: AgentNode | PromptNode }): AgentLimits {
  const { node } = stage;
  if (node.kind === 'prompt') return { maxTurns: 1, ...(node.maxTokens === undefined ? {} : { maxOutputTokens: node.maxTokens }) };
  const workflowTurns = stage.workflow.run.agent.max_turns;
  const maxTurns =
    node.maxTurns ??
    (typeof workflowTurns === 'number' && Number.isInteger(workflowTurns) && workflowTurns > 0 ? workflowTurns : DEFAULT_MAX_TURNS);
  return { maxTurns, ...(node.maxTokens === undefined ? {} : { maxTokens: node.maxTokens }) };
}

function stageResult(outcome: AgentLoopOutcome): StageResult {
  switch (outcome.status) {
    case 'succeeded':
      return { status: 'succeeded', output: stageOutputText(outcome.text), usage: outcome.usage };
    case 'failed':
      return { status: 'failed', output: outcome.text, error: outcome.reason, usage: outcome.usage };
    case 'cancelled':
      return { status: 'cancelled', output: outcome.text, error: outcome.reason ?? 'Cancelled', usage: outcome.usage };
    default: {
      const unreachable: never = outcome;
      return unreachable;
    }
  }
}

/**
 * The engine's `AgentStageRunner`.
 *
 * @example
 * const agent = new ModelStageRunner({ llmSettings: async () => settings.llm, env: process.env, logger });
 * new Worker({ ...options, agent });
 */
function noCliNamed(node: AgentNode): string {
  return `Agent stage '${node.name}' runs on the CLI backend but names no CLI: add cli = "claude" (or "codex", "gemini") to the node, or [llm] cli in .weft/settings.toml.`;
}

export class ModelStageRunner implements AgentStageRunner {
  readonly #options: AgentRunnerOptions;

  constructor(options: AgentRunnerOptions) {
    this.#options = options;
  }

  async runStage(stage: StageRun): Promise<StageResult> {
    const node = stage.node;
    if (node.kind !== 'agent' && node.kind !== 'prompt')
      return { status: 'failed', error: `the agent runner cannot run a ${node.kind} stage` };
    try {
      if (node.kind === 'agent') {
        const onCli = await this.#runOnCli({ ...stage, node });
        if (onCli !== undefined) return onCli;
      }
      return await this.#run({ ...stage, node });
    } catch (error) {
      if (stage.signal.aborted) return { status: 'cancelled', error: 'Cancelled' };
      // Set-up failures (no model, unknown provider, missing key) carry their code: `weft run` exits 2 on a configuration error.
      if (WeftError.is(error)) return { status: 'failed', error: error.message, errorCode: error.code };
      throw error;
    } finally {
      if (node.kind === 'agent') await endPairSession(stage);
    }
  }

  async checkStage(stage: StageRun): Promise<StageResult> {
    const node = stage.node;
    if (node.kind !== 'agent' && node.kind !== 'prompt')
      return { status: 'failed', error: `the agent runner cannot check a ${node.kind} stage` };
    try {
      const llm = await this.#options.llmSettings(stage.run);
      const cli = node.kind === 'agent' ? stageCli(node, llm) : undefined;
      // A stage on a CLI brings its own model configuration; weft checks only that a CLI is named.
      if (cli === 'unset' && node.kind === 'agent') return { status: 'failed', error: noCliNamed(node) };
      if (cli !== undefined) return { status: 'succeeded', output: `(dry run) agent stage on the ${cli} CLI` };
      const checked = checkModelConfig(modelSources(node, stage.workflow, stage.run), { llm, env: this.#options.env });
      return { status: 'succeeded', output: `(dry run) ${node.kind} stage on ${checked.provider}:${checked.model}` };
    } catch (error) {
      if (WeftError.is(error)) return { status: 'failed', error: error.message, errorCode: error.code };
      throw error;
    }
  }

  /** The stage's result when it runs on an external CLI; undefined when it runs on weft's own loop. */
  async #runOnCli(stage: StageRun & { node: AgentNode }): Promise<StageResult | undefined> {
    const llm = await this.#options.llmSettings(stage.run);
    const cli = stageCli(stage.node, llm);
    if (cli === undefined) return undefined;
    if (cli === 'unset') return { status: 'failed', error: noCliNamed(stage.node) };
    if (this.#options.cli === undefined)
      return { status: 'failed', error: `Agent stage '${stage.node.name}' runs on the CLI backend, which this runner was not given.` };
    return this.#options.cli.runStage(stage, cliStagePlan(stage, cli, llm, limitsFor(stage).maxTurns));
  }

  async #run(stage: StageRun & { node: AgentNode | PromptNode }): Promise<StageResult> {
    const { node, run, workflow } = stage;
    const logger = this.#options.logger.child(`run ${run.id}:${stage.stageId}`);
    const sources = modelSources(node, workflow, run);
    const llm = await this.#options.llmSettings(run);
    // Shared model limits (`[llm.limits]`) hold each call until its pools have room, on every host.
    const client = limitModelCalls(
      (this.#options.createClient ?? createModelClient)(sources, { llm, env: this.#options.env }),
      llm.limits,
      stage.services.modelCalls,
    );
    const system = systemPrompt({ run, workflow, node, context: stage.context, workDir: stage.workDir });
    const prompt = firstMessage({ run, node, context: stage.context });

    // Prompt stages take no tools, so they never start the run's MCP servers.
    const toolbox = node.kind === 'agent' ? await stage.services.toolbox() : undefined;
    const registry = toolbox?.registry;
    const executor = toolbox?.executor;
    const allowed = toolFilter(node.kind === 'agent' ? node.tools : undefined);
    const tools = (): AdaptedTools =>
      registry ? adaptTools(registry.list().filter(allowed), client.toolDialect) : adaptTools([], client.toolDialect);
    const offered = tools();
    const limits = limitsFor(stage);
    const [started] = await stage.emit([
      agentStartedEvent({
        kind: node.kind,
        provider: client.provider,
        model: client.modelId,
        tools: offered.specs.map((spec) => offered.toolFor(spec.name)?.name ?? spec.name),
        droppedTools: [...offered.warnings, ...unmatchedPatterns(node, registry)],
        maxTurns: limits.maxTurns,
        maxTokens: limits.maxTokens ?? limits.maxOutputTokens ?? null,
      }),
    ]);
    // An agent stage is an `invoke_agent` span; a prompt stage's one model turn sits on the stage span.
    const agentSpan = node.kind === 'agent' ? startAgentSpan(node.name, stage.stageId, client, stage.traceContext) : undefined;
    const traceContext = agentSpan ? contextWith(agentSpan, stage.traceContext) : stage.traceContext;
    let outcome: AgentLoopOutcome | undefined;
    try {
      outcome = await runAgentLoop({
        client,
        system,
        prompt,
        tools,
        ...(executor === undefined ? {} : { executor }),
        session: {
          workspaceRoot: stage.workDir,
          readFiles: createFileReadTracker(),
          signal: stage.signal,
          traceContext,
          origin: callOriginOf(stage),
        },
        traceContext,
        limits,
        signal: stage.signal,
        emit: (events) => stage.emit(events),
        ...(node.kind === 'agent' ? { inbox: runMessageInbox(stage.services.runs, stage.stageId, started?.seq ?? 0) } : {}),
        onWarning: (warning) => logger.warn(warning),
        ...(stage.budget === undefined ? {} : { budget: stage.budget }),
      });
    } finally {
      if (agentSpan) endAgentSpan(agentSpan, outcome);
    }
    if (outcome.status === 'failed') logger.debug(`stage failed: ${outcome.reason}`);
    return stageResult(outcome);
  }
}

/**
 * Where a stage's model may be set, first wins: the node, the run (`--model`), the
 * workflow's `[run] model` (then `[llm] model` in settings, see `selectModel`).
 */
export function modelSources(node: AgentNode | PromptNode, workflow: Workflow, run?: Pick<RunRecord, 'model'>): ModelSource[] {
  return [
    { spec: node.model, where: `model of node '${node.name}'` },
    ...(run === undefined ? [] : [{ spec: run.model, where: 'the model the run was created with' }]),
    { spec: workflow.run.model, where: `[run] model in ${workflow.file}` },
  ];
}

/** Node `tools` entries that match no tool, so a typo is visible in the transcript. */
function unmatchedPatterns(node: AgentNode | PromptNode, registry: ToolRegistry | undefined): string[] {
  if (node.kind !== 'agent' || node.tools === undefined || !registry) return [];
  const names = registry.list();
  return node.tools
    .filter((pattern) => !names.some(toolFilter([pattern])))
    .map((pattern) => `Node tools entry '${pattern}' matches no tool.`);
}

/**
 * A pair session on this stage ends with it. Recorded here, as the stage ends, so the
 * transcript says why; if this write is lost (the runner dies), the projection closes the
 * session anyway when the stage or the run ends.
 */
async function endPairSession(stage: StageRun): Promise<void> {
  try {
    const session = (await stage.services.runs.ownRun())?.pairSession;
    if (session?.stageId !== stage.stageId) return;
    await stage.emit([{ type: RUN_EVENT.pairEnded, payload: { sessionId: session.sessionId, reason: PAIR_END_REASON.stageFinished } }]);
  } catch {
    // Best effort: see above.
  }
}
