/**
 * The contract between weft's CLI backend and one external coding CLI (Claude Code, Codex,
 * Gemini CLI). weft owns everything around the CLI — the process group, cancel and crash
 * recovery, the events, the run-tools MCP server, approvals — and asks an adapter only
 * the CLI-specific parts:
 *
 * 1. where its binary is (`executable` on PATH, else `bundledBinary()`), unless settings
 *    name one (`[cli.<name>] path`);
 * 2. how to start it for one stage (`invocation`): argv, extra environment and the
 *    config files to write first, from a normalised {@link CliStageSpec};
 * 3. how to read its stdout (`createParser`): one line at a time, into normalised
 *    {@link CliEvent}s, which weft turns into the agent's transcript events;
 * 4. whether it can resume a session an earlier attempt of the stage started (`resumes`);
 * 5. optionally, how to hand it a message while it runs (`messageLine`, for `weft pair`).
 *
 * Adapters do no I/O and start nothing: they are pure functions of their input, so their
 * mapping is unit-testable without the CLI installed.
 *
 * @example
 * const adapter = cliAdapters.claude;
 * const started = adapter.invocation(spec); // { args: ['-p', …], env: {…}, files: [{ path, text }] }
 * const parser = adapter.createParser();
 * for (const line of stdoutLines) for (const event of parser.line(line)) handle(event);
 */
import type { McpServerConfig } from '../../mcp/config/server-config.js';
import type { JsonValue } from '../../runs/model/json.js';
import type { CliName } from '../../runs/workflow/types.js';
import type { ApprovalRule } from '../../tools/approval-policy.js';

export type { CliName };

/**
 * The MCP server weft starts for each CLI stage (Streamable HTTP on 127.0.0.1, behind a
 * bearer token in `headers`). Its tools let the CLI agent ask the run a question, report
 * progress, and — for CLIs that can delegate permission prompts to an MCP tool — ask weft
 * whether a tool call may run (weft's approval rules, else a run question).
 */
export interface RunToolsServer {
  /** The server's name in the CLI's MCP config; its tools appear as `mcp__<name>__<tool>` in Claude Code. */
  name: string;
  url: string;
  /** Sent with every request (the bearer token). A secret: never log it. */
  headers: Record<string, string>;
  /** The tool names on that server. */
  tools: {
    /** `{ prompt, kind?, options? }` → the answer: a run question. */
    ask: string;
    /** `{ message }` → ok: a progress note in the run's log. */
    progress: string;
    /**
     * Claude Code's `--permission-prompt-tool` contract: `{ tool_name, input, tool_use_id? }`
     * → text `{"behavior":"allow","updatedInput":…}` or `{"behavior":"deny","message":…}`.
     */
    permission: string;
  };
}

/** weft's approval rules for the stage (settings then workflow; the last matching rule wins). */
export interface CliPermissions {
  rules: readonly ApprovalRule[];
  /** The run's `auto_approve`: with no matching rule, allow instead of asking a person. */
  autoApprove: boolean;
}

/** One CLI stage in weft's terms: what every adapter maps to its own flags and files. */
export interface CliStageSpec {
  /** The first user message (rendered prompt template). */
  prompt: string;
  /** weft's system prompt for the stage (goal, inputs, node `system`); adapters append it to the CLI's own. */
  systemPrompt: string;
  /** The model as the node, run, workflow or settings name it (provider prefix removed); undefined means the CLI's default. */
  model: string | undefined;
  /** Most model turns; undefined when the node and workflow set none (the CLI's default). */
  maxTurns: number | undefined;
  /** The stage's time limit in ms (weft enforces it by killing the group; adapters may pass it on too). */
  timeoutMs: number | undefined;
  /** The run's workspace: the CLI's working directory. */
  workspaceDir: string;
  /**
   * A directory private to this stage (kept across its attempts, removed when the run
   * ends): the CLI's config home and any temp config file go here, so the user's own
   * config is never read or written.
   */
  stateDir: string;
  /** The run's enabled MCP servers, resolved (variables interpolated) as weft's own agents see them. */
  mcpServers: readonly McpServerConfig[];
  runTools: RunToolsServer;
  permissions: CliPermissions;
  /** A new session id (a UUID) for CLIs that take one (`claude --session-id`); a CLI that picks its own reports it in `session-started`. */
  sessionId: string;
  /** The CLI session an earlier attempt of this stage started, to resume where the CLI supports it. */
  resumeSessionId: string | undefined;
  /** The environment the CLI inherits (weft's own secrets removed), e.g. to read an MCP server's bearer token variable. */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether weft wants to send messages while it runs (a pair session may open): see `messageLine`. */
  interactive: boolean;
  /**
   * The CLI runs inside weft's OS sandbox (`[run.sandbox] mode = "os"`): weft's boundary
   * already confines its writes, reads and network, so a CLI's own sandbox may stand aside.
   */
  sandboxed?: boolean;
}

/** How to start the CLI for one stage. weft spawns `binary args…` in `spec.workspaceDir`, in its own process group. */
export interface CliInvocation {
  args: string[];
  /** Set on top of the environment weft passes children (weft's own secrets removed). */
  env: Record<string, string>;
  /** Written (mode 0600) before the CLI starts; paths inside `spec.stateDir`. */
  files: { path: string; text: string }[];
  /**
   * What the CLI reads on stdin: nothing (closed), or the first message and then any
   * `messageLine`s (a stream-input mode), kept open until the stage ends.
   */
  stdin: { kind: 'closed' } | { kind: 'messages'; first: string };
  /**
   * Names the CLI's own binary must also answer to on PATH (a link to it in a folder of
   * the stage's, put first on PATH): Codex re-executes itself as `codex-linux-sandbox`.
   */
  binaryAliases?: string[];
}

/** Tokens and money one model turn or the whole session used, as far as the CLI reports them. */
export interface CliUsage {
  inputTokens: number;
  outputTokens: number;
  /** US dollars, when the CLI reports a cost. */
  costUsd?: number;
}

/**
 * What a CLI's stream says, normalised. weft groups `text` and `tool-call-requested` into
 * one model turn until the CLI runs a tool (`tool-result`), reports `turn-finished`
 * or ends (`final`).
 */
export type CliEvent =
  /** The CLI's session id (for `resumeSessionId`), model and tools, when it says. */
  | { kind: 'session-started'; sessionId: string; model?: string; tools?: string[] }
  /** Model text of the current turn. */
  | { kind: 'text'; text: string }
  /** The model asked for a tool call (the CLI will run it, or refuse it). `tool` is the CLI's own name. */
  | { kind: 'tool-call-requested'; callId: string; tool: string; arguments: JsonValue }
  /** A tool call's result. */
  | { kind: 'tool-result'; callId: string; isError: boolean; text: string; structuredContent?: JsonValue }
  /** The current model turn is complete (its usage, when reported per turn). */
  | { kind: 'turn-finished'; usage?: CliUsage; finishReason?: string }
  /** The session ended: the answer (the stage output) or, with `isError`, why it failed. */
  | {
      kind: 'final';
      text: string;
      isError: boolean;
      usage?: CliUsage;
      turns?: number;
      permissionDenials?: { tool: string; callId?: string }[];
    }
  /** The CLI reported an error; `loginRequired` when it needs credentials it does not have. */
  | { kind: 'error'; message: string; loginRequired?: boolean }
  /** A line that is not this CLI's stream format (weft records it and fails the stage if no answer follows). */
  | { kind: 'malformed'; line: string; reason: string };

/** Reads one stage's stdout; it may keep state between lines (one parser per process). */
export interface CliStreamParser {
  /** One line of stdout, without its newline; blank lines are not passed. */
  line(text: string): CliEvent[];
}

export interface CliAdapter {
  readonly cli: CliName;
  /** The human name used in errors ("Claude Code"). */
  readonly displayName: string;
  /** The executable's name, looked up on PATH. */
  readonly executable: string;
  /** The npm package that installs the CLI, named in the "not found" error. */
  readonly npmPackage: string;
  /**
   * What the CLI reads from the environment to reach its model (the stage's config home is
   * weft's, so a login the user made is not seen): a key — any one of `keys` — and the
   * variable for another endpoint than the provider's. Named by `weft doctor`, never printed.
   */
  readonly modelEnvironment: { keys: readonly string[]; endpoint: string };
  /** A binary shipped in an installed npm package, when PATH has none; undefined when there is none. */
  bundledBinary?(): string | undefined;
  /** Argv, environment and files that start the CLI for `spec`. */
  invocation(spec: CliStageSpec): CliInvocation;
  createParser(): CliStreamParser;
  /**
   * Whether `invocation` resumes `spec.resumeSessionId` (a session the CLI saved in the
   * stage's `stateDir`): then a new attempt after a crash or an interrupt carries on that
   * session, else it starts afresh. A resume the CLI refuses starts afresh once.
   */
  readonly resumes: boolean;
  /** A person's message as one stdin line; undefined when the CLI cannot take messages while it runs (pair is refused). */
  messageLine?(text: string): string;
  /** Whether stderr (its last lines) and the exit code say the CLI needs a login. */
  loginRequired?(exitCode: number | null, stderrTail: string): boolean;
}
