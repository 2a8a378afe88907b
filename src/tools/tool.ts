/**
 * The tool model every layer shares: built-in tools, MCP tools and weft's own run tools
 * all have this shape, so the agent loop and the CLI call them the same way.
 */
import type { JsonSchema } from '../core/json-schema.js';
import type { Logger } from '../core/logger.js';
import type { PreparedSandbox } from '../core/sandbox/sandbox-provider.js';
import type { AbortLike } from './call-abort.js';

export type ToolSource = 'builtin' | 'mcp' | 'weft';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One piece of a tool's answer: text, an image, or a resource (the MCP content types). */
export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; blob?: string };

/** What a tool call answered: its content, structured data when the tool gives it, and `isError` for a failed or refused call. */
export interface ToolResult {
  content: ToolContent[];
  isError: boolean;
  /** Machine-readable result (MCP `structuredContent`); kept for events, not sent to the model. */
  structuredContent?: Record<string, unknown>;
  /** Where the full output was kept when the budget cut it. */
  artifactPath?: string;
}

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Remembers which files a session has read, for the read-before-write guardrail.
 * Keys are canonical absolute paths, so `src/a.ts` and `/ws/src/a.ts` are one file.
 */
export interface FileReadTracker {
  markRead(absolutePath: string): void;
  hasRead(absolutePath: string): boolean;
}

/** The real path of a workspace root, resolved once and kept (`WorkspaceRealRoots`). */
export interface RealRoots {
  get(workspaceRoot: string): Promise<string>;
}

/**
 * Who makes a call: the run, stage and attempt that the questions and events it causes
 * (approvals, MCP elicitation and sampling) belong to. Absent outside runs.
 */
export interface CallOrigin {
  runId: string;
  stageId: string;
  attempt: number;
}

export interface ToolContext {
  /** The workspace root (the run's cwd); file tools never reach outside it. */
  workspaceRoot: string;
  signal: AbortSignal;
  /**
   * The same cancellation as `signal`, for code that only listens for the abort: reading it
   * instead of `signal` spares the executor creating an AbortSignal for the call.
   */
  cancellation?: AbortLike;
  readFiles: FileReadTracker;
  logger: Logger;
  onProgress?: (progress: ToolProgress) => void;
  /** The run's sandbox (`[run.sandbox] mode = "os"`): the `shell` tool runs inside it and file tools refuse its `deny_read`. */
  sandbox?: PreparedSandbox;
  /** The run stage making the call, so what the call asks of the run lands on that stage. */
  origin?: CallOrigin;
  /** The realpath of `workspaceRoot`, remembered by whoever made the context (a run's toolbox); file tools resolve it themselves without. */
  realRoots?: RealRoots;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  source: ToolSource;
  /** The MCP server that owns the tool, for `source: 'mcp'`. */
  server?: string;
  /** Per-tool limit; the executor's default applies when absent; Infinity when the tool keeps its own time. */
  timeoutMs?: number;
  /**
   * Runs the tool. May throw (a `WeftError` ideally): the executor turns every throw into
   * an error result, so implementations need not catch.
   */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

export function textResult(text: string, extra: Partial<ToolResult> = {}): ToolResult {
  return { content: [{ type: 'text', text }], isError: false, ...extra };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The text of a result as the model sees it when it cannot take images or audio. */
export function resultText(result: ToolResult): string {
  return result.content
    .map((part) => {
      switch (part.type) {
        case 'text':
          return part.text;
        case 'image':
          return '[image content]';
        case 'audio':
          return '[audio content]';
        case 'resource':
          return part.text ?? '[resource content]';
        default: {
          const unreachable: never = part;
          return String(unreachable);
        }
      }
    })
    .join('\n');
}

export function createFileReadTracker(): FileReadTracker {
  const read = new Set<string>();
  return { markRead: (path) => void read.add(path), hasRead: (path) => read.has(path) };
}
