/**
 * Tool approval: ordered `{ pattern, action }` rules over qualified tool names, where the
 * last matching rule wins. With no matching rule, read-only built-ins and weft's own tools
 * are allowed; MCP tools and the built-ins that change things (`shell`, `write_file`,
 * `edit_file`) are asked in interactive use and follow the run's `auto_approve` in
 * workflows, as Claude Code asks before Bash.
 */
import picomatch from 'picomatch';
import type { Tool } from './tool.js';

/** What a matching rule does with a call: run it, refuse it, or ask first. */
export type ApprovalAction = 'allow' | 'deny' | 'ask';

/** A rule over qualified tool names (globs such as `mcp__github__*`); the last rule that matches a call decides. */
export interface ApprovalRule {
  pattern: string;
  action: ApprovalAction;
}

export interface ApprovalMode {
  /** A person is at a terminal who can be asked. */
  interactive: boolean;
  /** The run's `auto_approve`; decides unmatched MCP tools when not interactive. */
  autoApprove: boolean;
  /** The run is in an OS sandbox (`[run.sandbox] mode = "os"`): its boundary replaces the prompt before `shell`. */
  sandboxed?: boolean;
}

/** What the policy needs to know of a tool: its name, where it comes from, whether it only reads. */
export type ApprovalSubject = Pick<Tool, 'name' | 'source' | 'annotations'>;

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

  /** @example policy.decide(shellTool, { interactive: false, autoApprove: false }) // { action: 'ask', rule: undefined } */
  decide(tool: ApprovalSubject, mode: ApprovalMode): ApprovalDecision {
    for (let index = this.#rules.length - 1; index >= 0; index -= 1) {
      const entry = this.#rules[index]!;
      if (entry.matches(tool.name)) return { action: entry.rule.action, rule: entry.rule };
    }
    return { action: defaultAction(tool, mode), rule: undefined };
  }
}

function askUnlessAutoApproved(mode: ApprovalMode): ApprovalAction {
  if (mode.interactive) return 'ask';
  return mode.autoApprove ? 'allow' : 'ask';
}

function defaultAction(tool: ApprovalSubject, mode: ApprovalMode): ApprovalAction {
  switch (tool.source) {
    case 'builtin':
      if (mode.sandboxed === true && tool.name === 'shell') return 'allow';
      // Built-ins declare their hints themselves; one that does not say it only reads is treated as one that writes.
      return tool.annotations?.readOnlyHint === true ? 'allow' : askUnlessAutoApproved(mode);
    case 'weft':
      return 'allow';
    case 'mcp':
      return askUnlessAutoApproved(mode);
    default: {
      const unreachable: never = tool.source;
      return unreachable;
    }
  }
}
