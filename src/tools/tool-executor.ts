/**
 * Runs tool calls: name lookup → argument validation → approval policy → execution with
 * timeout and abort → result normalisation and output budget. Every failure comes back as
 * an error result; nothing a tool does can throw through to the caller.
 */
import { WeftError, errorMessage } from '../core/errors.js';
import type { PreparedSandbox } from '../core/sandbox/sandbox-provider.js';
import { checkAgainstSchema, compileSchema } from '../core/json-schema.js';
import type { Logger } from '../core/logger.js';
import { redactSecrets } from '../core/redact.js';
import type { ApprovalDecision, ApprovalMode, ApprovalPolicy } from './approval-policy.js';
import type { ArtifactSink } from './artifact-sink.js';
import { DEFAULT_OUTPUT_LIMIT_BYTES, applyOutputBudget, fitsOutputBudget } from './output-budget.js';
import type { ToolRegistry } from './registry.js';
import { errorResult, type CallOrigin, type FileReadTracker, type Tool, type ToolProgress, type ToolResult } from './tool.js';
import { CallContext } from './call-abort.js';
import { RunningCall } from './running-call.js';
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
  /** The run stage whose calls these are; approvals and what MCP servers ask during the calls go on it. */
  origin?: CallOrigin;
}

/** Asked when the policy says `ask`; resolves true to allow the call, rejects when `signal` aborts. `origin`: the session's. */
export type ApprovalPrompt = (call: ToolCall, tool: Tool, signal: AbortSignal, origin?: CallOrigin) => Promise<boolean>;

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
  /** The run's sandbox, handed to every call (`shell` runs inside it; file tools refuse its `deny_read`). */
  sandbox?: PreparedSandbox;
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
  executeAll(
    calls: readonly ToolCall[],
    session: ToolSession,
    onOutcome?: (outcome: ToolCallOutcome, index: number) => Promise<void>,
  ): Promise<ToolCallOutcome[]> {
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
    const tool = this.#options.registry.get(call.name);
    const span = startToolCallSpan(call.name, call.id, tool, session.traceContext);
    const result = await this.#run(call, tool, session);
    // Budgeting is asynchronous only for a result over the limit (its full text is saved).
    const budgeted = fitsOutputBudget(result, this.#outputLimit) ? result : await this.#budget(result, call.name);
    endToolCallSpan(span, budgeted);
    return { callId: call.id, name: call.name, result: budgeted, durationMs: performance.now() - startedAt };
  }

  /** Everything before the tool runs is synchronous; only approval by a person and the tool itself wait. */
  #run(call: ToolCall, tool: Tool | undefined, session: ToolSession): ToolResult | Promise<ToolResult> {
    if (session.signal.aborted) return errorResult('Cancelled');
    if (!tool) return errorResult(`Unknown tool '${call.name}'. Available tools: ${this.#toolNames()}.`);

    const args = call.arguments ?? {};
    // The compiled validator is cached per schema; problems are described only for a failure.
    if (!compileSchema(tool.inputSchema)(args)) {
      return errorResult(`Invalid arguments for '${tool.name}': ${checkAgainstSchema(tool.inputSchema, args).problems.join('; ')}`);
    }

    const decision = this.#options.policy.decide(tool, this.#options.approvalMode);
    if (decision.action === 'allow') return this.#executeWithLimits(tool, args as Record<string, unknown>, call, session);
    return this.#approveThenRun(decision, call, tool, args as Record<string, unknown>, session);
  }

  async #approveThenRun(
    decision: ApprovalDecision,
    call: ToolCall,
    tool: Tool,
    args: Record<string, unknown>,
    session: ToolSession,
  ): Promise<ToolResult> {
    const refusal = await this.#approve(decision, call, tool, session);
    if (refusal) return refusal;
    // An abort while approval was decided fired before the call listens for it.
    if (session.signal.aborted) return errorResult('Cancelled');
    return this.#executeWithLimits(tool, args, call, session);
  }

  async #approve(decision: ApprovalDecision, call: ToolCall, tool: Tool, session: ToolSession): Promise<ToolResult | undefined> {
    const { signal } = session;
    switch (decision.action) {
      case 'allow':
        return undefined;
      case 'deny':
        return errorResult(
          `Tool '${tool.name}' was denied by the approval policy${decision.rule ? ` (rule '${decision.rule.pattern}' = deny)` : ''}.`,
        );
      case 'ask': {
        const ask = this.#options.askApproval;
        if (!ask) {
          return errorResult(
            `Tool '${tool.name}' needs approval and nobody can be asked here. Add an approval rule such as { pattern = "${tool.name}", action = "allow" } or enable auto_approve.`,
          );
        }
        try {
          return (await ask(call, tool, signal, session.origin)) ? undefined : errorResult(`Tool '${tool.name}' was denied by the user.`);
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

  #executeWithLimits(tool: Tool, args: Record<string, unknown>, call: ToolCall, session: ToolSession): Promise<ToolResult> {
    const timeoutMs = tool.timeoutMs ?? this.#options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const running = new RunningCall(session.signal, tool.name, timeoutMs);
    const onProgress = session.onProgress;
    try {
      tool
        .execute(
          args,
          new CallContext({
            workspaceRoot: session.workspaceRoot,
            cancellation: running.abort,
            readFiles: session.readFiles,
            logger: this.#toolLogger(tool.name),
            onProgress: onProgress ? (progress) => onProgress(call.id, progress) : undefined,
            realRoots: this.#realRoots,
            ...(this.#options.sandbox === undefined ? {} : { sandbox: this.#options.sandbox }),
            origin: session.origin,
          }),
        )
        .then(
          (result) => running.settle(result),
          (error: unknown) => running.settle(this.#failure(tool, error)),
        );
    } catch (error) {
      // A tool that throws before returning its promise.
      running.settle(this.#failure(tool, error));
    }
    return running.result;
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

  get #outputLimit(): number {
    return this.#options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES;
  }

  async #budget(result: ToolResult, toolName: string): Promise<ToolResult> {
    try {
      return await applyOutputBudget(result, toolName, this.#outputLimit, this.#options.artifacts);
    } catch (error) {
      return errorResult(`Could not keep the full output of '${toolName}': ${errorMessage(error)}`);
    }
  }

  #toolNames(): string {
    const names = this.#options.registry
      .list()
      .map((tool) => tool.name)
      .sort();
    return names.length > 20 ? `${names.slice(0, 20).join(', ')}, … (${names.length} in all; see 'weft tools list')` : names.join(', ');
  }
}
