/**
 * Serves `sampling/createMessage` from MCP servers with weft's model, for runs and for
 * `weft tools call`. A sampling request is approved like a call of a tool named
 * `mcp__<server>__sampling`: `allow`/`deny`/`ask` rules match it (so `mcp__<server>__*`
 * and `*` cover it too), and with no rule it follows `auto_approve` like any MCP tool.
 * `ask` goes to whoever the caller can reach (a run question, a terminal prompt). Runs
 * record `sampling-requested`, a `sampling-request-retried` per retry of the model request
 * and `sampling-finished` events: server, model, limits, usage and a clipped answer, never
 * the key or the full conversation.
 *
 * (Servers whose config leaves `sampling` off never get here: the hub refuses for them.)
 */
import { errorMessage, WeftError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { redactSecrets } from '../../core/redact.js';
import { sampleWithModel, samplingMessageText } from '../../agent/mcp-sampling.js';
import type { ModelClient, ModelRetry } from '../../agent/model-client.js';
import { qualifiedToolName } from '../../mcp/hub/tool-names.js';
import type { SamplingHandler, SamplingRequest } from '../../mcp/hub/types.js';
import {
  SAMPLING_EVENT,
  type SamplingFinishedPayload,
  type SamplingRequestedPayload,
  type SamplingRequestRetriedPayload,
} from '../../runs/model/event-types.js';
import type { NewRunEvent } from '../../runs/model/run-event.js';
import type { ApprovalMode, ApprovalPolicy } from '../../tools/approval-policy.js';
import type { CallOrigin } from '../../tools/tool.js';
import { clipText } from '../../core/clip-text.js';

/** Most characters of the model's answer a `sampling-finished` event keeps. */
const EVENT_TEXT_LIMIT = 2000;
/** Most characters of the server's last message shown when a person is asked. */
const PROMPT_EXCERPT_LIMIT = 300;

export interface SamplingHandlerDeps {
  policy: ApprovalPolicy;
  approvalMode: ApprovalMode;
  /** Asks a person to allow one request (`origin`: the request's); absent when nobody can be asked. */
  confirm?: (prompt: string, signal: AbortSignal, origin?: CallOrigin) => Promise<boolean>;
  /** The model that answers; built on first use, so a bad `[llm]` only fails sampling. */
  model: () => Promise<ModelClient>;
  /** Records events (a run's log, on `origin`'s stage); absent outside runs. */
  record?: (events: NewRunEvent[], origin?: CallOrigin) => Promise<void>;
  logger: Logger;
}

/** The name approval rules match for sampling by `server`. */
export function samplingToolName(server: string): string {
  return qualifiedToolName(server, 'sampling');
}

function lastMessageText(request: SamplingRequest): string {
  const last = request.params.messages.at(-1);
  return last === undefined ? '' : samplingMessageText(last);
}

function confirmPrompt(request: SamplingRequest, client: ModelClient): string {
  const excerpt = clipText(lastMessageText(request), PROMPT_EXCERPT_LIMIT);
  return `Allow MCP server '${request.server}' to use the model ${client.provider}:${client.modelId} (up to ${request.params.maxTokens} tokens)? Its request: ${JSON.stringify(excerpt)}`;
}

/**
 * @example
 * const handlers = { sampling: samplingHandler({ policy, approvalMode: { interactive: false, autoApprove: true }, model: async () => client, logger }) };
 */
export function samplingHandler(deps: SamplingHandlerDeps): SamplingHandler {
  const recordFor = (origin: CallOrigin | undefined) => async (events: NewRunEvent[]) => {
    // The log is a record, not a gate: a failed append must not fail the sampling.
    await deps
      .record?.(events, origin)
      .catch((error: unknown) => deps.logger.warn(`could not record sampling events: ${errorMessage(error)}`));
  };
  return async (request) => {
    const { server, params, signal } = request;
    const record = recordFor(request.origin);
    const decision = deps.policy.decide({ name: samplingToolName(server), source: 'mcp' }, deps.approvalMode);
    if (decision.action === 'deny') {
      throw new WeftError(
        'TOOL_DENIED',
        `sampling by MCP server '${server}' was denied by the approval policy${decision.rule ? ` (rule '${decision.rule.pattern}' = deny)` : ''}.`,
      );
    }
    const client = await deps.model();
    if (decision.action === 'ask') await askPerson(request, client, deps);
    const base = { server, provider: client.provider, model: client.modelId };
    await record([
      {
        type: SAMPLING_EVENT.requested,
        payload: {
          ...base,
          maxTokens: params.maxTokens,
          messages: params.messages.length,
          systemPrompt: params.systemPrompt !== undefined,
        } satisfies SamplingRequestedPayload,
      },
    ]);
    const startedAt = performance.now();
    try {
      const onRetry = (retry: ModelRetry) =>
        record([{ type: SAMPLING_EVENT.retried, payload: { ...base, ...retry } satisfies SamplingRequestRetriedPayload }]);
      const { result, usage } = await sampleWithModel(client, params, signal, onRetry);
      const text = result.content.type === 'text' ? result.content.text : '';
      await record([
        {
          type: SAMPLING_EVENT.finished,
          payload: {
            ...base,
            usage: { ...usage },
            stopReason: result.stopReason ?? null,
            durationMs: Math.round(performance.now() - startedAt),
            text: clipText(redactSecrets(text), EVENT_TEXT_LIMIT),
          } satisfies SamplingFinishedPayload,
        },
      ]);
      return result;
    } catch (error) {
      const message = redactSecrets(errorMessage(error));
      await record([
        {
          type: SAMPLING_EVENT.finished,
          payload: { ...base, error: message, durationMs: Math.round(performance.now() - startedAt) } satisfies SamplingFinishedPayload,
        },
      ]);
      throw new WeftError('MODEL_REQUEST_FAILED', `sampling for MCP server '${server}' failed: ${message}`, { cause: error });
    }
  };
}

/** An `ask` decision: a person allows or refuses this one request. */
async function askPerson(request: SamplingRequest, client: ModelClient, deps: SamplingHandlerDeps): Promise<void> {
  if (!deps.confirm) {
    const name = samplingToolName(request.server);
    throw new WeftError(
      'TOOL_DENIED',
      `sampling by MCP server '${request.server}' needs approval and nobody can be asked here. Add an approval rule such as { pattern = "${name}", action = "allow" } or enable auto_approve.`,
    );
  }
  if (!(await deps.confirm(confirmPrompt(request, client), request.signal, request.origin))) {
    throw new WeftError('TOOL_DENIED', `sampling by MCP server '${request.server}' was denied by the user.`);
  }
}
