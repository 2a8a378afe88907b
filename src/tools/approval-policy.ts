/**
 * Tool approval: ordered `{ pattern, action }` rules over qualified tool names, where the
 * last matching rule wins. With no matching rule, built-in tools are allowed and MCP tools
 * are asked in interactive use and follow the run's `auto_approve` in workflows.
 */
import picomatch from 'picomatch';
import type { ToolSource } from './tool.js';

export type ApprovalAction = 'allow' | 'deny' | 'ask';

export interface ApprovalRule {
  pattern: string;
  action: ApprovalAction;
}

export interface ApprovalMode {
  /** A person is at a terminal who can be asked. */
  interactive: boolean;
  /** The run's `auto_approve`; decides unmatched MCP tools when not interactive. */
  autoApprove: boolean;
}

export interface ApprovalDecision {
  action: ApprovalAction;
  /** The rule that decided, or undefined when the default did. */
  rule: ApprovalRule | undefined;
}

export class ApprovalPolicy {
  readonly #rules: { rule: ApprovalRule; matches: (name: string) => boolean }[];

  constructor(rules: readonly ApprovalRule[]) {
    // Globs match across `__` and `.` alike: `mcp__github__*` must cover every GitHub tool.
    this.#rules = rules.map((rule) => ({ rule, matches: picomatch(rule.pattern, { dot: true, nonegate: true, noextglob: true }) }));
  }

  decide(toolName: string, source: ToolSource, mode: ApprovalMode): ApprovalDecision {
    for (let index = this.#rules.length - 1; index >= 0; index -= 1) {
      const entry = this.#rules[index]!;
      if (entry.matches(toolName)) return { action: entry.rule.action, rule: entry.rule };
    }
    return { action: defaultAction(source, mode), rule: undefined };
  }
}

function defaultAction(source: ToolSource, mode: ApprovalMode): ApprovalAction {
  switch (source) {
    case 'builtin':
    case 'weft':
      return 'allow';
    case 'mcp':
      if (mode.interactive) return 'ask';
      return mode.autoApprove ? 'allow' : 'ask';
    default: {
      const unreachable: never = source;
      return unreachable;
    }
  }
}
