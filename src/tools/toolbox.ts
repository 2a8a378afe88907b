/**
 * The pair every caller of tools needs: a registry (the built-ins, any tools given) and
 * the executor behind one approval policy. Built here, and only here, for the CLI
 * (`weft tools`), runs, the MCP library (`weft-runtime/mcp`) and the engine's test kit,
 * so what one of them checks before a call the others check too.
 */
import { ApprovalPolicy, type ApprovalRule } from './approval-policy.js';
import { builtinTools, type BuiltinToolOptions } from './builtin/index.js';
import { ToolRegistry } from './registry.js';
import { ToolExecutor, type ToolExecutorOptions } from './tool-executor.js';
import type { Tool } from './tool.js';

/** The executor's options, with the registry optional and the policy given as its rules. */
export interface ToolboxOptions extends Omit<ToolExecutorOptions, 'registry' | 'policy'> {
  /** A registry of the caller's own (one that reports changes, say); default a new one. */
  registry?: ToolRegistry;
  /** The built-ins' options; `false`: no built-ins (an MCP-only toolbox). */
  builtins: BuiltinToolOptions | false;
  /** More tools, registered after the built-ins. */
  tools?: readonly Tool[];
  /** Approval rules, the last match winning. */
  rules: readonly ApprovalRule[];
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
  const { registry = new ToolRegistry(), builtins, tools = [], rules, ...executorOptions } = options;
  for (const tool of [...(builtins === false ? [] : builtinTools(builtins)), ...tools]) registry.register(tool);
  const policy = new ApprovalPolicy(rules);
  return { registry, executor: new ToolExecutor({ ...executorOptions, registry, policy }), policy };
}
