/**
 * A CLI's "may this tool call run?" answered by weft's approval policy, the same rules
 * weft's own agent stages follow: the last matching rule wins, rules may name the CLI's
 * tool (`Bash`, `mcp__github__create_issue`) or weft's built-in that does the same
 * (`shell`); with no rule, MCP tools and tools that change things ask — a run question —
 * unless the run is auto-approved.
 */
import { ApprovalPolicy, type ApprovalDecision, type ApprovalRule } from '../../tools/approval-policy.js';
import type { PermissionDecision } from './run-tools-server.js';
import { WEFT_TOOL_OF_CLAUDE_TOOL } from './cli-tool-names.js';

export interface PermissionRequest {
  tool: string;
  input: Record<string, unknown>;
}

export interface PermissionDeciderOptions {
  rules: readonly ApprovalRule[];
  autoApprove: boolean;
  /** Asks a person (a confirmation question); resolves true when they allow the call. */
  askPerson(prompt: string, tool: string, signal: AbortSignal): Promise<boolean>;
}

function describeInput(input: Record<string, unknown>): string {
  const text = JSON.stringify(input);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/**
 * @example
 * const decide = permissionDecider({ rules: [{ pattern: 'shell', action: 'allow' }], autoApprove: false, askPerson });
 * await decide({ tool: 'Bash', input: { command: 'ls' } }, signal); // { behavior: 'allow', updatedInput: { command: 'ls' } }
 */
export function permissionDecider(
  options: PermissionDeciderOptions,
): (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionDecision> {
  const policy = new ApprovalPolicy(options.rules);
  const mode = { interactive: false, autoApprove: options.autoApprove };
  const decide = (tool: string): ApprovalDecision => {
    const source = tool.startsWith('mcp__') ? 'mcp' : 'builtin';
    const own = policy.decide({ name: tool, source }, mode);
    const alias = WEFT_TOOL_OF_CLAUDE_TOOL[tool];
    if (own.rule !== undefined || alias === undefined) return own;
    return policy.decide({ name: alias, source }, mode);
  };
  return async (request, signal) => {
    const decision = decide(request.tool);
    const allow: PermissionDecision = { behavior: 'allow', updatedInput: request.input };
    switch (decision.action) {
      case 'allow':
        return allow;
      case 'deny':
        return {
          behavior: 'deny',
          message: `weft's approval rule { pattern = "${decision.rule?.pattern ?? '?'}", action = "deny" } denies ${request.tool}.`,
        };
      case 'ask': {
        const allowed = await options.askPerson(
          `Allow ${request.tool} with these arguments? ${describeInput(request.input)}`,
          request.tool,
          signal,
        );
        return allowed ? allow : { behavior: 'deny', message: `A person running the workflow declined ${request.tool}.` };
      }
      default: {
        const unknown: never = decision.action;
        return unknown;
      }
    }
  };
}
