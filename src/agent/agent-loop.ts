/**
 * The agent loop: ask the model, run the tool calls it makes through the run's
 * `ToolExecutor` (validation, approval, budget — all calls of a turn concurrently,
 * results in call order), give it the results, and go on until it answers without tool
 * calls or a limit ends the stage. Failures the model must see are tool results, never
 * throws: unknown tools, unreadable arguments and failed tools all go back as error
 * results and the loop continues. Messages sent to the run join the next turn.
 *
 *     messages = [user: prompt]
 *     loop:
 *       stop (between turns) if the run's budget is spent and not raised
 *       deliver new run messages as user messages
 *       stop if max turns reached
 *       turn = model(system, messages, tools of this turn)   (text streamed to the log as it comes)
 *       record turn; no tool calls → done (unless messages arrived meanwhile)
 *       stop if the token budget is spent
 *       record calls; outcomes = executor.executeAll(calls), recording each result as it ends
 *       messages += assistant turn + tool results
 */
import { errorMessage, WeftError } from '../core/errors.js';
import type { NewRunEvent } from '../runs/model/run-event.js';
import type { BudgetCheck, BudgetStop } from '../runs/engine/budget-guard.js';
import type { ModelCallThrottle } from '../runs/engine/model-call-gate.js';
import type { ToolCall, ToolCallOutcome, ToolExecutor, ToolSession } from '../tools/tool-executor.js';
import { errorResult } from '../tools/tool.js';
import {
  addUsage,
  EMPTY_USAGE,
  type ImageInput,
  type ModelClient,
  type ModelMessage,
  type ModelRetry,
  type ModelTurn,
  type ModelUsage,
} from './model-client.js';
import type { MessageInbox } from './run-messages.js';
import type { TraceContext } from '../core/telemetry/tracing.js';
import { tracedGenerate } from './agent-tracing.js';
import { outputTokensFor, tokenLimitReached, turnLimitReached, type AgentLimits, type LoopProgress } from './stop-condition.js';
import { toolResultOutput } from './tool-result-output.js';
import type { AdaptedTools } from './tool-schemas.js';
import {
  messageDeliveredEvent,
  modelRetryEvent,
  modelThrottledEvent,
  modelTurnEvent,
  toolCallFinishedEvent,
  toolCallStartedEvent,
  type TurnCall,
} from './transcript-events.js';
import { textStream } from './text-stream.js';

export interface AgentLoopParams {
  client: ModelClient;
  system?: string;
  /** The first user message. */
  prompt: string;
  /** The tools offered this turn (read again every turn, so new MCP tools appear). */
  tools: () => AdaptedTools;
  executor?: ToolExecutor;
  session: ToolSession;
  limits: AgentLimits;
  signal: AbortSignal;
  emit: (events: NewRunEvent[]) => Promise<unknown>;
  inbox?: MessageInbox;
  onWarning?: (message: string) => void;
  /** Where the model turns' spans go (the agent's span); tools get theirs through `session`. */
  traceContext?: TraceContext;
  /** The run's budget, checked before every turn (so never in the middle of a tool call). */
  budget?: BudgetCheck;
}

export type AgentLoopOutcome =
  | { status: 'succeeded'; text: string; turns: number; usage: ModelUsage }
  | { status: 'failed'; reason: string; text: string; turns: number; usage: ModelUsage }
  | { status: 'cancelled'; text: string; turns: number; usage: ModelUsage; reason?: string };

interface PlannedCall extends TurnCall {
  /** The name the model used. */
  modelName: string;
  /** Set when the call cannot run; the model gets this error as the result. */
  refusal?: string;
}

function planCalls(turn: ModelTurn, tools: AdaptedTools): PlannedCall[] {
  return turn.toolCalls.map((call) => {
    const tool = tools.toolFor(call.name);
    const base = { callId: call.id, modelName: call.name, tool: tool?.name ?? call.name, arguments: call.input };
    if (call.invalid !== undefined) return { ...base, refusal: call.invalid };
    if (!tool)
      return {
        ...base,
        refusal: `Unknown tool '${call.name}'. Available tools: ${tools.specs.map((spec) => spec.name).join(', ') || '(none)'}.`,
      };
    return base;
  });
}

/** Runs the calls that can run; `finished` hears each call as it ends (refused ones first), so its end is recorded then. */
async function runCalls(
  planned: readonly PlannedCall[],
  executor: ToolExecutor | undefined,
  session: ToolSession,
  finished: (call: PlannedCall, outcome: ToolCallOutcome) => Promise<void>,
): Promise<ToolCallOutcome[]> {
  const runnable = planned.filter((call) => call.refusal === undefined && executor !== undefined);
  const refused = new Map<string, ToolCallOutcome>();
  for (const call of planned) {
    if (runnable.includes(call)) continue;
    const outcome = {
      callId: call.callId,
      name: call.tool,
      result: errorResult(call.refusal ?? 'No tools can run in this stage.'),
      durationMs: 0,
    };
    refused.set(call.callId, outcome);
    await finished(call, outcome);
  }
  const calls: ToolCall[] = runnable.map((call) => ({ id: call.callId, name: call.tool, arguments: call.arguments }));
  const outcomes =
    executor && calls.length > 0 ? await executor.executeAll(calls, session, (outcome, index) => finished(runnable[index]!, outcome)) : [];
  const byId = new Map(outcomes.map((outcome, index) => [runnable[index]!.callId, outcome]));
  return planned.map((call) => byId.get(call.callId) ?? refused.get(call.callId)!);
}

function toolMessage(
  planned: readonly PlannedCall[],
  outcomes: readonly ToolCallOutcome[],
  imageInput: ImageInput | undefined,
): ModelMessage {
  return {
    role: 'tool',
    content: planned.map((call, index) => ({
      type: 'tool-result',
      toolCallId: call.callId,
      toolName: call.modelName,
      output: toolResultOutput(outcomes[index]!.result, imageInput),
    })),
  };
}

/** The budget's verdict before a turn; `aborted` when the run was cancelled while its budget question waited. */
async function checkBudget(budget: BudgetCheck | undefined, signal: AbortSignal): Promise<BudgetStop | 'aborted'> {
  if (budget === undefined) return undefined;
  try {
    return await budget.beforeTurn(signal);
  } catch (error) {
    if (signal.aborted) return 'aborted';
    throw error;
  }
}

/**
 * Runs one agent (or, with `maxTurns: 1` and no tools, one prompt) to its end.
 *
 * @example
 * const outcome = await runAgentLoop({ client, prompt: 'List the files', tools: () => adapted, executor, session, limits: { maxTurns: 20 }, signal, emit });
 */
export async function runAgentLoop(params: AgentLoopParams): Promise<AgentLoopOutcome> {
  const { client, limits, signal, emit } = params;
  const messages: ModelMessage[] = [{ role: 'user', content: params.prompt }];
  const progress: LoopProgress = { turns: 0, usage: EMPTY_USAGE };
  const warned = new Set<string>();
  let text = '';
  const end = (status: 'succeeded' | 'cancelled') => ({ status, text, turns: progress.turns, usage: progress.usage });
  const fail = (reason: string): AgentLoopOutcome => ({ status: 'failed', reason, text, turns: progress.turns, usage: progress.usage });

  const warnOnce = (warnings: readonly string[]) => {
    for (const warning of warnings) {
      if (warned.has(warning)) continue;
      warned.add(warning);
      params.onWarning?.(warning);
    }
  };

  const deliverMessages = async (): Promise<number> => {
    const arrived = (await params.inbox?.take()) ?? [];
    for (const message of arrived) messages.push({ role: 'user', content: message.text });
    if (arrived.length > 0) await emit(arrived.map((message) => messageDeliveredEvent(progress.turns + 1, message)));
    return arrived.length;
  };

  await deliverMessages();
  for (;;) {
    if (signal.aborted) return end('cancelled');
    const stop = await checkBudget(params.budget, signal);
    if (stop === 'aborted') return end('cancelled');
    if (stop?.status === 'failed') return fail(stop.reason);
    if (stop?.status === 'cancelled') return { ...end('cancelled'), reason: stop.reason };
    const limit = turnLimitReached(progress, limits);
    if (limit) return fail(limit);
    const tools = params.tools();
    warnOnce(tools.warnings);

    let turn: ModelTurn;
    const number = progress.turns + 1;
    const streamed = textStream(number, emit);
    try {
      const request = {
        ...(params.system === undefined ? {} : { system: params.system }),
        messages,
        tools: tools.specs,
        maxOutputTokens: outputTokensFor(progress, limits),
        signal,
        onTextDelta: (delta: string) => streamed.push(delta),
        onRetry: async (retry: ModelRetry) => {
          await streamed.flush();
          await emit([modelRetryEvent(number, retry)]);
        },
        onThrottled: async (throttle: ModelCallThrottle) => {
          await emit([modelThrottledEvent(number, `${client.provider}:${client.modelId}`, throttle)]);
        },
      };
      turn = await tracedGenerate(client, request, number, params.traceContext);
    } catch (error) {
      await streamed.flush();
      if (signal.aborted) return end('cancelled');
      return fail(WeftError.is(error) ? error.message : `${client.provider} (model '${client.modelId}') failed: ${errorMessage(error)}`);
    }
    await streamed.flush();
    warnOnce(turn.warnings ?? []);
    progress.turns += 1;
    progress.usage = addUsage(progress.usage, turn.usage);
    text = turn.text;
    messages.push(...turn.messages);
    const planned = planCalls(turn, tools);
    await emit([modelTurnEvent(progress.turns, turn, planned, `${client.provider}:${client.modelId}`)]);

    if (planned.length === 0) {
      if (turn.finishReason !== 'length' || tokenLimitReached(progress, limits) === undefined) {
        if ((await deliverMessages()) > 0) continue;
        return end('succeeded');
      }
      return fail(tokenLimitReached(progress, limits)!);
    }
    const spent = tokenLimitReached(progress, limits);
    if (spent) return fail(spent);

    await emit(planned.map((call) => toolCallStartedEvent(progress.turns, call)));
    const outcomes = await runCalls(planned, params.executor, params.session, async (call, outcome) => {
      await emit([toolCallFinishedEvent(progress.turns, call, outcome)]);
    });
    messages.push(toolMessage(planned, outcomes, client.imageInput));
    await deliverMessages();
  }
}
