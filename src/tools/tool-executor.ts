/**
 * Runs tool calls: name lookup → argument validation → approval policy → execution with
 * timeout and abort → result normalisation and output budget. Every failure comes back as
 * an error result; nothing a tool does can throw through to the caller.
 */
import { setMaxListeners } from 'node:events';
import { WeftError, errorMessage } from '../core/errors.js';
import { formatDuration } from '../core/duration.js';
import { checkAgainstSchema } from '../core/json-schema.js';
import type { Logger } from '../core/logger.js';
import { redactSecrets } from '../core/redact.js';
import type { ApprovalMode, ApprovalPolicy } from './approval-policy.js';
import type { ArtifactSink } from './artifact-sink.js';
import { DEFAULT_OUTPUT_LIMIT_BYTES, applyOutputBudget } from './output-budget.js';
import type { ToolRegistry } from './registry.js';
import { errorResult, type FileReadTracker, type Tool, type ToolProgress, type ToolResult } from './tool.js';
import { CallAbort, CallContext } from './call-abort.js';
import { endToolCallSpan, startToolCallSpan } from './tool-call-span.js';
import type { TraceContext } from '../core/telemetry/tracing.js';
import { WorkspaceRealRoots } from './workspace-real-roots.js';

export interface ToolCall {
  /** The model's id for the call (or any unique label); echoed in the outcome. */
  id: string;
  name: string;
  arguments: unknown;
}

export interface ToolCallOutcome {
  callId: string;
  name: string;
  result: ToolResult;
  durationMs: number;
}

/** One agent session's view of the workspace; shared by all its calls. */
export interface ToolSession {
  workspaceRoot: string;
  readFiles: FileReadTracker;
  signal: AbortSignal;
  onProgress?: (callId: string, progress: ToolProgress) => void;
  /** The span the calls' spans belong to (the stage's or the agent's); none: the active context. */
  traceContext?: TraceContext;
}

/** Asked when the policy says `ask`; resolves true to allow the call, rejects when `signal` aborts. */
export type ApprovalPrompt = (call: ToolCall, tool: Tool, signal: AbortSignal) => Promise<boolean>;

export interface ToolExecutorOptions {
  registry: ToolRegistry;
  policy: ApprovalPolicy;
  approvalMode: ApprovalMode;
  artifacts: ArtifactSink;
  logger: Logger;
  askApproval?: ApprovalPrompt;
  /** Applies to tools without their own `timeoutMs`. */
  defaultTimeoutMs?: number;
  outputLimitBytes?: number;
}

// Above shell's own 600 s cap, so a tool's own timeout always fires first.
const DEFAULT_TIMEOUT_MS = 660_000;

export class ToolExecutor {
  readonly #options: ToolExecutorOptions;
  /** One tagged logger per tool name: made once, not per call. */
  readonly #toolLoggers = new Map<string, Logger>();
  /** A toolbox (one executor) serves one run, whose workspace root stays put: resolved once. */
  readonly #realRoots = new WorkspaceRealRoots();

  constructor(options: ToolExecutorOptions) {
    this.#options = options;
  }

  /**
   * Runs a model turn's calls concurrently; outcomes come back in call order. `onOutcome`
   * hears each call as it ends (in the order they end) and is awaited before this returns.
   */
  executeAll(calls: readonly ToolCall[], session: ToolSession, onOutcome?: (outcome: ToolCallOutcome, index: number) => Promise<void>): Promise<ToolCallOutcome[]> {
    // Every pending call listens on the session's signal; a wide turn is not a leak.
    setMaxListeners(0, session.signal);
    return Promise.all(
      calls.map(async (call, index) => {
        const outcome = await this.execute(call, session);
        await onOutcome?.(outcome, index);
        return outcome;
      }),
    );
  }

  async execute(call: ToolCall, session: ToolSession): Promise<ToolCallOutcome> {
    const startedAt = performance.now();
    const span = startToolCallSpan(call.name, call.id, this.#options.registry.get(call.name), session.traceContext);
    const result = await this.#run(call, session);
    const budgeted = await this.#budget(result, call.name);
    endToolCallSpan(span, budgeted);
    return { callId: call.id, name: call.name, result: budgeted, durationMs: performance.now() - startedAt };
  }

  async #run(call: ToolCall, session: ToolSession): Promise<ToolResult> {
    if (session.signal.aborted) return errorResult('Cancelled');
    const tool = this.#options.registry.get(call.name);
    if (!tool) return errorResult(`Unknown tool '${call.name}'. Available tools: ${this.#toolNames()}.`);

    const args = call.arguments ?? {};
    const check = checkAgainstSchema(tool.inputSchema, args);
    if (!check.ok) {
      return errorResult(`Invalid arguments for '${tool.name}': ${check.problems.join('; ')}`);
    }

    const refusal = await this.#approve(call, tool, session.signal);
    if (refusal) return refusal;
    // An abort while approval was decided fired before the call listens for it.
    if (session.signal.aborted) return errorResult('Cancelled');

    try {
      return await this.#executeWithLimits(tool, args as Record<string, unknown>, call, session);
    } catch (error) {
      return this.#failure(tool, error);
    }
  }

  async #approve(call: ToolCall, tool: Tool, signal: AbortSignal): Promise<ToolResult | undefined> {
    const decision = this.#options.policy.decide(tool, this.#options.approvalMode);
    switch (decision.action) {
      case 'allow':
        return undefined;
      case 'deny':
        return errorResult(`Tool '${tool.name}' was denied by the approval policy${decision.rule ? ` (rule '${decision.rule.pattern}' = deny)` : ''}.`);
      case 'ask': {
        const ask = this.#options.askApproval;
        if (!ask) {
          return errorResult(`Tool '${tool.name}' needs approval and nobody can be asked here. Add an approval rule such as { pattern = "${tool.name}", action = "allow" } or enable auto_approve.`);
        }
        try {
          return (await ask(call, tool, signal)) ? undefined : errorResult(`Tool '${tool.name}' was denied by the user.`);
        } catch (error) {
          if (signal.aborted) return errorResult('Cancelled');
          return errorResult(`Approval for '${tool.name}' failed: ${errorMessage(error)}`);
        }
      }
      default: {
        const unreachable: never = decision.action;
        return errorResult(`Unknown approval action ${String(unreachable)}`);
      }
    }
  }

  async #executeWithLimits(tool: Tool, args: Record<string, unknown>, call: ToolCall, session: ToolSession): Promise<ToolResult> {
    const timeoutMs = tool.timeoutMs ?? this.#options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const abort = new CallAbort();
    let settle: ((result: ToolResult) => void) | undefined;
    const stopped = new Promise<ToolResult>((resolve) => {
      settle = resolve;
    });
    const onAbort = () => {
      abort.abort(new WeftError('TOOL_CANCELLED', 'Cancelled'));
      settle?.(errorResult('Cancelled'));
    };
    session.signal.addEventListener('abort', onAbort, { once: true });
    // Infinity: the tool keeps its own time (setTimeout would read it as 1 ms).
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          abort.abort(new WeftError('TOOL_TIMEOUT', 'timeout'));
          settle?.(errorResult(`Tool '${tool.name}' timed out after ${formatDuration(timeoutMs)}.`));
        }, timeoutMs)
      : undefined;
    try {
      const running = tool.execute(
        args,
        new CallContext({
          workspaceRoot: session.workspaceRoot,
          cancellation: abort,
          readFiles: session.readFiles,
          logger: this.#toolLogger(tool.name),
          onProgress: session.onProgress ? (progress) => session.onProgress?.(call.id, progress) : undefined,
          realRoots: this.#realRoots,
        }),
      );
      // A tool that ignores its signal must not hold the turn: whichever settles first wins.
      running.catch(() => {});
      return await Promise.race([running, stopped]);
    } finally {
      clearTimeout(timer);
      session.signal.removeEventListener('abort', onAbort);
    }
  }

  #toolLogger(name: string): Logger {
    let logger = this.#toolLoggers.get(name);
    if (logger === undefined) {
      logger = this.#options.logger.child(name);
      this.#toolLoggers.set(name, logger);
    }
    return logger;
  }

  #failure(tool: Tool, error: unknown): ToolResult {
    if (WeftError.is(error, 'TOOL_CANCELLED')) return errorResult('Cancelled');
    if (!WeftError.is(error)) this.#options.logger.debug(`tool '${tool.name}' threw`, { error: errorMessage(error) });
    return errorResult(redactSecrets(errorMessage(error)));
  }

  async #budget(result: ToolResult, toolName: string): Promise<ToolResult> {
    const limit = this.#options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
    try {
      return await applyOutputBudget(result, toolName, limit, this.#options.artifacts);
    } catch (error) {
      return errorResult(`Could not keep the full output of '${toolName}': ${errorMessage(error)}`);
    }
  }

  #toolNames(): string {
    const names = this.#options.registry.list().map((tool) => tool.name).sort();
    return names.length > 20 ? `${names.slice(0, 20).join(', ')}, … (${names.length} in all; see 'weft tools list')` : names.join(', ');
  }
}
