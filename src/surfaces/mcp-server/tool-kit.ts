/**
 * How a weft tool is declared and served: a zod input schema (advertised in tools/list,
 * checked here so a bad argument gets an INVALID_ARGUMENTS result that names it), a zod
 * output schema, and a `run` that returns a one-line summary, the structured data and the
 * next steps. Clients such as Claude Code hand the model only `structuredContent` when a
 * result has it, so the next steps live there too (`next_steps`, in every output schema),
 * and the text carries the same: the summary, a `Next:` line, the data as JSON.
 * Every thrown error becomes an `isError` result through the error table.
 */
import type { CallToolResult, McpServer, ServerContext, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { RunService } from '../../app/services/run-service.js';
import { failure, toFailure, toolErrorResult, type McpFailure } from './error-codes.js';
import { describeIssues } from '../shared/input-issues.js';
import type { RunWatcher } from './run-watcher.js';

/** What the tools, resources and prompts of one server instance share. */
export interface McpServerDeps {
  /** The run service, opened on first use: listing tools never touches the store. */
  runs: () => Promise<RunService>;
  /** Where a run without `cwd` resolves its workflow and goal file (the server's cwd). */
  cwd: string;
  version: string;
  /** Watches subscribed runs for changes (shared by every connection of the process). */
  watcher: RunWatcher;
}

export interface ToolContext {
  deps: McpServerDeps;
  signal: AbortSignal;
  /** True when the client asked for progress notifications (it sent a progressToken). */
  wantsProgress: boolean;
  /** Sends `notifications/progress` when the client asked for it; a no-op otherwise. */
  progress(progress: number, total: number, message: string): Promise<void>;
}

export interface ToolOutput<T> {
  /** One line for people and for clients that only show text. */
  summary: string;
  data: T;
  /** What the caller can do next, each a sentence naming the tool and arguments. */
  nextSteps?: readonly string[];
}

const nextStepsSchema = z
  .array(z.string())
  .describe('What to do next, each naming the tool and the arguments to pass; empty when nothing is left to do');

/** Thrown by a tool to fail with one of the surface's own codes. */
export class ToolFailure extends Error {
  constructor(readonly failed: McpFailure) {
    super(failed.message);
  }
}

/** An argument an action cannot do without: `action 'message' needs 'text'.` otherwise. */
export function needArg<T>(value: T | undefined, action: string, field: string): T {
  if (value === undefined) throw new ToolFailure(failure('INVALID_ARGUMENTS', `action '${action}' needs '${field}'.`));
  return value;
}

export interface ToolDefinition<I extends z.ZodType, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(args: z.output<I>, context: ToolContext): Promise<ToolOutput<z.input<O>>>;
}

export interface WeftTool {
  name: string;
  register(server: McpServer, deps: McpServerDeps): void;
}

/**
 * Advertises the zod schema's JSON Schema but lets every value through, so that the
 * handler (not the SDK) reports invalid arguments, with a stable code.
 */
function advertiseOnly(schema: z.ZodType): StandardSchemaWithJSON<unknown, unknown> {
  const standard = schema['~standard'];
  return { '~standard': { version: 1, vendor: 'weft', validate: (value: unknown) => ({ value }), jsonSchema: standard.jsonSchema } };
}

function progressOf(ctx: ServerContext): ToolContext['progress'] {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return async () => {};
  return async (progress, total, message) => {
    await ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } })
      .catch(() => undefined);
  };
}

/** A tool's text + structured result. */
export function toolResult<T extends object>(output: ToolOutput<T>): CallToolResult {
  const nextSteps = [...(output.nextSteps ?? [])];
  const structured = { ...output.data, next_steps: nextSteps };
  return {
    content: [
      { type: 'text', text: output.summary },
      ...(nextSteps.length > 0 ? [{ type: 'text' as const, text: `Next: ${nextSteps.join(' ')}` }] : []),
      { type: 'text', text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

/** @example export const runGetTool = defineTool({ name: 'weft_run_get', …, run: async ({ run_id }, context) => … }); */
export function defineTool<I extends z.ZodType, O extends z.ZodObject>(definition: ToolDefinition<I, O>): WeftTool {
  return {
    name: definition.name,
    register(server, deps) {
      server.registerTool(
        definition.name,
        {
          title: definition.title,
          description: definition.description,
          inputSchema: advertiseOnly(definition.input),
          outputSchema: definition.output.extend({ next_steps: nextStepsSchema }),
          annotations: definition.annotations,
        },
        async (args, ctx) => {
          const parsed = definition.input.safeParse(args ?? {});
          if (!parsed.success)
            return toolErrorResult(
              failure('INVALID_ARGUMENTS', `Invalid arguments for ${definition.name}: ${describeIssues(parsed.error)}.`),
            );
          const context: ToolContext = {
            deps,
            signal: ctx.mcpReq.signal,
            wantsProgress: ctx.mcpReq._meta?.progressToken !== undefined,
            progress: progressOf(ctx),
          };
          try {
            return toolResult(await definition.run(parsed.data, context));
          } catch (error) {
            return toolErrorResult(error instanceof ToolFailure ? error.failed : toFailure(error));
          }
        },
      );
    },
  };
}
