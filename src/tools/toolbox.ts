/**
 * The pair every caller of tools needs: a registry (the built-ins, any tools given) and
 * the executor behind one approval policy. Built here, and only here, for the CLI
 * (`weft tools`), runs, the MCP library (`weft-runtime/mcp`) and the engine's test kit,
 * so what one of them checks before a call the others check too.
 */
import type { Logger } from '../core/logger.js';
import { ApprovalPolicy, type ApprovalMode, type ApprovalRule } from './approval-policy.js';
import type { ArtifactSink } from './artifact-sink.js';
import { builtinTools, type BuiltinToolOptions } from './builtin/index.js';
import { ToolRegistry } from './registry.js';
import { ToolExecutor, type ApprovalPrompt } from './tool-executor.js';
import type { Tool } from './tool.js';

export interface ToolboxOptions {
  /** A registry of the caller's own (one that reports changes, say); default a new one. */
  registry?: ToolRegistry;
  /** The built-ins' options; `false`: no built-ins (an MCP-only toolbox). */
  builtins: BuiltinToolOptions | false;
  /** More tools, registered after the built-ins. */
  tools?: readonly Tool[];
  /** Approval rules, the last match winning. */
  rules: readonly ApprovalRule[];
  approvalMode: ApprovalMode;
  artifacts: ArtifactSink;
  logger: Logger;
  askApproval?: ApprovalPrompt;
  defaultTimeoutMs?: number;
  outputLimitBytes?: number;
}

export interface Toolbox {
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** The executor's policy, for what else asks like a tool (MCP sampling). */
  policy: ApprovalPolicy;
}

/**
 * @example
 * const { registry, executor } = buildToolbox({ builtins: {}, rules: [], approvalMode: { interactive: false, autoApprove: true }, artifacts, logger });
 */
export function buildToolbox(options: ToolboxOptions): Toolbox {
  const registry = options.registry ?? new ToolRegistry();
  for (const tool of [...(options.builtins === false ? [] : builtinTools(options.builtins)), ...(options.tools ?? [])]) registry.register(tool);
  const policy = new ApprovalPolicy(options.rules);
  const executor = new ToolExecutor({
    registry,
    policy,
    approvalMode: options.approvalMode,
    artifacts: options.artifacts,
    logger: options.logger,
    ...(options.askApproval ? { askApproval: options.askApproval } : {}),
    ...(options.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
    ...(options.outputLimitBytes !== undefined ? { outputLimitBytes: options.outputLimitBytes } : {}),
  });
  return { registry, executor, policy };
}
