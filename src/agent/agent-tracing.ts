/**
 * The spans of an agent stage, after the GenAI semantic conventions: `invoke_agent <node>`
 * around the loop (token totals at the end), and one `chat <model>` client span per model
 * turn with the provider, model, output limit, finish reason and token counts. Prompts and
 * answers stay out of the trace.
 */
import { errorMessage, WeftError } from '../core/errors.js';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  genAiProviderName,
} from '../core/telemetry/gen-ai.js';
import { recordFailure, setSpanAttributes, SpanKind, startSpan, type Span, type TraceContext } from '../core/telemetry/tracing.js';
import type { AgentLoopOutcome } from './agent-loop.js';
import type { ModelClient, ModelRequest, ModelTurn, ModelUsage } from './model-client.js';

function modelAttributes(client: ModelClient): Record<string, string> {
  const provider = genAiProviderName(client.provider);
  return {
    [ATTR_GEN_AI_PROVIDER_NAME]: provider,
    [ATTR_GEN_AI_SYSTEM]: provider,
    [ATTR_GEN_AI_REQUEST_MODEL]: client.modelId,
    'weft.llm.provider': client.provider,
  };
}

/** Tokens by the GenAI conventions; cost (which they do not name yet) as `weft.cost.*`, reported and estimated apart. */
function usageAttributes(usage: ModelUsage): Record<string, number> {
  return {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    ...(usage.reportedCostUsd === undefined ? {} : { 'weft.cost.reported_usd': usage.reportedCostUsd }),
    ...(usage.estimatedCostUsd === undefined ? {} : { 'weft.cost.estimated_usd': usage.estimatedCostUsd }),
    ...(usage.unpricedTurns === undefined ? {} : { 'weft.cost.unpriced_turns': usage.unpricedTurns }),
  };
}

/** `invoke_agent <node>`, for an `agent` stage. */
export function startAgentSpan(nodeName: string, stageId: string, client: ModelClient, parent: TraceContext | undefined): Span {
  return startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${nodeName}`,
    {
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_AGENT_NAME]: nodeName,
        'weft.stage.id': stageId,
        ...modelAttributes(client),
      },
    },
    parent,
  );
}

/** Ends the agent's span with its totals; no outcome: the loop threw (its error is the stage's). */
export function endAgentSpan(span: Span, outcome: AgentLoopOutcome | undefined): void {
  if (outcome === undefined) recordFailure(span, 'agent_failed', 'the agent loop ended with an error');
  else {
    setSpanAttributes(span, { ...usageAttributes(outcome.usage), 'weft.agent.turns': outcome.turns, 'weft.agent.status': outcome.status });
    if (outcome.status === 'failed') recordFailure(span, 'agent_failed', outcome.reason);
  }
  span.end();
}

/**
 * One model turn inside a `chat <model>` span; the turn (or the error) is returned (thrown) unchanged.
 *
 * @example const turn = await tracedGenerate(client, request, 3, params.traceContext);
 */
export async function tracedGenerate(
  client: ModelClient,
  request: ModelRequest,
  turnNumber: number,
  parent: TraceContext | undefined,
): Promise<ModelTurn> {
  const span = startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${client.modelId}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
        ...modelAttributes(client),
        ...(request.maxOutputTokens === undefined ? {} : { [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: request.maxOutputTokens }),
        'weft.agent.turn': turnNumber,
      },
    },
    parent,
  );
  try {
    const turn = await client.generate(request);
    setSpanAttributes(span, {
      ...usageAttributes(turn.usage),
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [turn.finishReason],
      'weft.agent.tool_calls': turn.toolCalls.length,
    });
    return turn;
  } catch (error) {
    recordFailure(span, request.signal.aborted ? 'cancelled' : WeftError.is(error) ? error.code : 'model_error', errorMessage(error));
    throw error;
  } finally {
    span.end();
  }
}
