/**
 * Reads `codex exec --json` (Codex 0.169): one JSON object per line, a thread and a turn
 * around items that start and complete.
 *
 *   {"type":"thread.started","thread_id":"…"}
 *   {"type":"turn.started"}
 *   {"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"…","status":"in_progress"}}
 *   {"type":"item.completed","item":{"id":"item_1","type":"command_execution","aggregated_output":"hi\n","exit_code":0,…}}
 *   {"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"memory","tool":"create_entities","result":{…},"error":null,…}}
 *   {"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"…"}}
 *   {"type":"turn.completed","usage":{"input_tokens":300,"output_tokens":60,…}}
 *
 * One `codex exec` is one Codex turn, however many model calls it makes, so
 * `turn.completed` ends the session: its usage is the session's, and the last agent
 * message is the answer. `turn.failed` ends it with an error. Codex's `error` lines
 * while it retries ("Reconnecting... 2/5") and its `error` items (warnings such as
 * unknown model metadata) do not end anything and are not reported as failures.
 */
import type { JsonObject, JsonValue } from '../../runs/model/json.js';
import type { CliEvent, CliStreamParser, CliUsage } from './cli-adapter.js';
import { jsonLine, numberField, objectField, stringField } from './stream-json.js';

/** The tool name Codex's model calls to run a command (`exec_command`, the unified exec tool). */
export const CODEX_SHELL_TOOL = 'exec_command';

/** What Codex says when it has no credentials for the model provider, or they are refused. */
const LOGIN_MESSAGE = /missing environment variable|401 unauthorized|invalid api key|not logged in|codex login|incorrect api key/i;

export function codexLoginRequired(message: string): boolean {
  return LOGIN_MESSAGE.test(message);
}

function usageOf(value: JsonValue | undefined): CliUsage | undefined {
  const usage = objectField(value);
  if (usage === undefined) return undefined;
  return { inputTokens: numberField(usage, 'input_tokens') ?? 0, outputTokens: numberField(usage, 'output_tokens') ?? 0 };
}

/** An MCP result's text parts joined, as the transcript shows a tool result. */
function mcpResultText(result: JsonObject | undefined): string {
  const content = result?.content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => objectField(part))
    .map((part) => (part === undefined ? '' : (stringField(part, 'text') ?? `[${stringField(part, 'type') ?? 'content'}]`)))
    .join('\n');
}

/** The tool call an item stands for, as weft names it: Codex's own tool, or `mcp__<server>__<tool>`. */
function toolCall(item: JsonObject): { tool: string; arguments: JsonValue } | undefined {
  switch (item.type) {
    case 'command_execution':
      return { tool: CODEX_SHELL_TOOL, arguments: { command: item.command ?? '' } };
    case 'mcp_tool_call':
      return { tool: `mcp__${stringField(item, 'server') ?? '?'}__${stringField(item, 'tool') ?? '?'}`, arguments: item.arguments ?? {} };
    case 'file_change':
      return { tool: 'apply_patch', arguments: { changes: item.changes ?? [] } };
    case 'web_search':
      return { tool: 'web_search', arguments: { query: item.query ?? '' } };
    default:
      return undefined;
  }
}

function toolResult(item: JsonObject): Extract<CliEvent, { kind: 'tool-result' }> {
  const callId = stringField(item, 'id') ?? '';
  const failed = item.status === 'failed' || item.status === 'declined';
  switch (item.type) {
    case 'command_execution': {
      const exitCode = numberField(item, 'exit_code');
      return {
        kind: 'tool-result',
        callId,
        isError: failed || (exitCode !== undefined && exitCode !== 0),
        text: stringField(item, 'aggregated_output') ?? '',
      };
    }
    case 'mcp_tool_call': {
      const error = objectField(item.error);
      const result = objectField(item.result);
      if (error !== undefined)
        return { kind: 'tool-result', callId, isError: true, text: stringField(error, 'message') ?? 'the tool call failed' };
      const structured = result?.structured_content;
      return {
        kind: 'tool-result',
        callId,
        isError: failed || result?.is_error === true,
        text: mcpResultText(result),
        ...(structured === undefined || structured === null ? {} : { structuredContent: structured }),
      };
    }
    default:
      return { kind: 'tool-result', callId, isError: failed, text: JSON.stringify(item.changes ?? item.status ?? '') };
  }
}

/**
 * @example
 * const parser = codexStreamParser();
 * parser.line('{"type":"thread.started","thread_id":"t1"}'); // [{ kind: 'session-started', sessionId: 't1' }]
 */
export function codexStreamParser(): CliStreamParser {
  const requested = new Set<string>();
  let answer = '';
  let lastError: string | undefined;

  const started = (item: JsonObject): CliEvent[] => {
    const call = toolCall(item);
    const callId = stringField(item, 'id') ?? '';
    if (call === undefined || requested.has(callId)) return [];
    requested.add(callId);
    return [{ kind: 'tool-call-requested', callId, tool: call.tool, arguments: call.arguments }];
  };

  const completed = (item: JsonObject): CliEvent[] => {
    if (item.type === 'agent_message') {
      answer = stringField(item, 'text') ?? '';
      return answer === '' ? [] : [{ kind: 'text', text: answer }];
    }
    if (toolCall(item) === undefined) return [];
    // Some items (a patch applied at once) arrive completed without having started.
    return [...started(item), toolResult(item)];
  };

  return {
    line(text) {
      const event = jsonLine(text);
      if (event === undefined) return [{ kind: 'malformed', line: text, reason: 'not a JSON object' }];
      const item = objectField(event.item);
      switch (event.type) {
        case 'thread.started': {
          const sessionId = stringField(event, 'thread_id');
          return sessionId === undefined
            ? [{ kind: 'malformed', line: text, reason: 'thread.started without thread_id' }]
            : [{ kind: 'session-started', sessionId }];
        }
        case 'item.started':
          return item === undefined ? [] : started(item);
        case 'item.completed':
          return item === undefined ? [] : completed(item);
        case 'error': {
          const message = stringField(event, 'message') ?? '';
          if (!message.startsWith('Reconnecting...')) lastError = message;
          return [];
        }
        case 'turn.completed': {
          const usage = usageOf(event.usage);
          return [{ kind: 'final', text: answer, isError: false, ...(usage === undefined ? {} : { usage }) }];
        }
        case 'turn.failed': {
          const message = stringField(objectField(event.error) ?? {}, 'message') ?? lastError ?? 'the turn failed';
          return [
            { kind: 'error', message, ...(codexLoginRequired(message) ? { loginRequired: true } : {}) },
            { kind: 'final', text: message, isError: true },
          ];
        }
        case undefined:
          return [{ kind: 'malformed', line: text, reason: 'no "type" field' }];
        default:
          // turn.started, item.updated (todo lists, reasoning) and types newer Codex versions add.
          return [];
      }
    },
  };
}
