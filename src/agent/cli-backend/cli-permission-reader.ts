/**
 * weft's approval rules, read the way a CLI that cannot ask a person needs them: which of
 * weft's built-ins the CLI's own equivalents may use, and which tools of each MCP server
 * it may call. "Ask" counts as "no": Codex and Gemini CLI in headless mode have no way to
 * put a question to weft, so whatever would need a person is denied up front.
 *
 * Rules are globs over weft's qualified names (`shell`, `write_file`,
 * `mcp__<server>__<tool>`); the last matching rule wins, as in weft's own loop. A CLI only
 * learns an MCP server's tools once it connects, so per server this reads the rules that
 * cover every tool of it (`mcp__github__*`, `mcp__*`, `*`) as the server's default and
 * the rules that name one tool exactly as exceptions. A glob that covers some tools of a
 * server but not all (`mcp__github__create_*`) cannot be handed to these CLIs and is not:
 * docs/agents.md says so.
 */
import { ApprovalPolicy, type ApprovalMode, type ApprovalRule, type ApprovalSubject } from '../../tools/approval-policy.js';
import type { CliPermissions } from './cli-adapter.js';

/** What a CLI may do with one MCP server's tools. */
export interface McpServerAccess {
  /** Whether tools no rule names exactly may be called. */
  allowByDefault: boolean;
  /** Tools named exactly by a rule that are allowed. */
  allowed: string[];
  /** Tools named exactly by a rule that are denied (or would need a person). */
  denied: string[];
}

const GLOB_CHARACTERS = /[*?[\]{}()!+@]/;
/** A tool name no server has: a rule that matches it matches every tool of the server. */
const ANY_TOOL = '\u0000any';

export class CliPermissionReader {
  readonly #policy: ApprovalPolicy;
  readonly #permissions: CliPermissions;

  constructor(permissions: CliPermissions) {
    this.#permissions = permissions;
    this.#policy = new ApprovalPolicy(permissions.rules);
  }

  /**
   * Whether weft would let the CLI use its built-in `cliName` without a person. Rules may
   * name the CLI's own tool or the weft built-in that does the same (`weftName`): the last
   * rule that matches either decides, else weft's default for a built-in that does (not)
   * only read.
   *
   * @example reader.builtinAllowed('run_shell_command', 'shell', false) // false unless a rule allows it or auto_approve is on
   */
  builtinAllowed(cliName: string, weftName: string | undefined, readOnly: boolean): boolean {
    const decide = (name: string) => this.#policy.decide({ name, source: 'builtin', annotations: { readOnlyHint: readOnly } }, this.#mode);
    const decisions = [decide(cliName), ...(weftName === undefined ? [] : [decide(weftName)])];
    const position = (rule: ApprovalRule | undefined) => (rule === undefined ? -1 : this.#permissions.rules.indexOf(rule));
    const last = decisions.reduce((best, next) => (position(next.rule) > position(best.rule) ? next : best));
    return last.action === 'allow';
  }

  /** @example reader.mcpServer('memory') // { allowByDefault: true, allowed: [], denied: ['delete_entities'] } */
  mcpServer(server: string): McpServerAccess {
    const prefix = `mcp__${server}__`;
    const named = new Set(
      this.#permissions.rules
        .map((rule) => rule.pattern)
        .filter((pattern) => pattern.startsWith(prefix) && !GLOB_CHARACTERS.test(pattern))
        .map((pattern) => pattern.slice(prefix.length)),
    );
    const access: McpServerAccess = { allowByDefault: this.#allowed({ name: prefix + ANY_TOOL, source: 'mcp' }), allowed: [], denied: [] };
    for (const tool of named) (this.#allowed({ name: prefix + tool, source: 'mcp' }) ? access.allowed : access.denied).push(tool);
    return access;
  }

  get #mode(): ApprovalMode {
    return { interactive: false, autoApprove: this.#permissions.autoApprove };
  }

  #allowed(subject: ApprovalSubject): boolean {
    return this.#policy.decide(subject, this.#mode).action === 'allow';
  }
}
