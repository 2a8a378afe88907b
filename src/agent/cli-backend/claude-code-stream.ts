/**
 * Claude Code's `--output-format stream-json --verbose` lines as {@link CliEvent}s:
 * `system/init` (session, model, tools), `assistant` (one content block per line: text or
 * tool_use; `error: "authentication_failed"` when it has no credentials), `user` (tool
 * results), and `result` (the answer, total usage and cost, permission denials). Lines of
 * other types (hooks, compaction, rate limits) carry nothing weft records.
 */
import type { JsonValue } from '../../runs/model/json.js';
import type { CliEvent, CliStreamParser, CliUsage } from './cli-adapter.js';

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(record) : [];
}

function usageOf(value: unknown, costUsd?: unknown): CliUsage | undefined {
  const usage = record(value);
  if (typeof usage.input_tokens !== 'number' && typeof usage.output_tokens !== 'number') return undefined;
  // Cached input is input too: Claude Code reports it apart.
  const input = [usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens].reduce<number>(
    (sum, part) => sum + (typeof part === 'number' ? part : 0),
    0,
  );
  const output = typeof usage.output_tokens === 'number' ? usage.output_tokens : 0;
  return { inputTokens: input, outputTokens: output, ...(typeof costUsd === 'number' ? { costUsd } : {}) };
}

/** A tool result's content (a string or text blocks) as text. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : block.type === 'image' ? '[image]' : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * One parser per Claude Code process: it remembers the model message being streamed, so
 * the turn it belongs to ends (`turn-finished`, with that message's usage) when a line of
 * another kind arrives.
 *
 * @example
 * const parser = claudeCodeStreamParser();
 * parser.line('{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Hi"}]}}'); // [{ kind: 'text', text: 'Hi' }]
 */
export function claudeCodeStreamParser(): CliStreamParser {
  let open: { id: unknown; usage: CliUsage | undefined } | undefined;
  const endTurn = (): CliEvent[] => {
    if (open === undefined) return [];
    const usage = open.usage;
    open = undefined;
    return [{ kind: 'turn-finished', ...(usage === undefined ? {} : { usage }) }];
  };

  const assistant = (line: Json): CliEvent[] => {
    const message = record(line.message);
    if (line.error === 'authentication_failed') {
      open = undefined;
      return [{ kind: 'error', message: resultText(message.content) || 'authentication failed', loginRequired: true }];
    }
    const events: CliEvent[] = open !== undefined && open.id !== message.id ? endTurn() : [];
    open = { id: message.id, usage: usageOf(message.usage) };
    for (const block of list(message.content)) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') events.push({ kind: 'text', text: block.text });
      if (block.type === 'tool_use')
        events.push({
          kind: 'tool-call-requested',
          callId: String(block.id),
          tool: String(block.name),
          arguments: (block.input ?? {}) as JsonValue,
        });
    }
    return events;
  };

  const user = (line: Json): CliEvent[] => {
    const events = endTurn();
    const structured = record(line.tool_use_result).structuredContent;
    for (const block of list(record(line.message).content)) {
      if (block.type !== 'tool_result') continue;
      events.push({
        kind: 'tool-result',
        callId: String(block.tool_use_id),
        isError: block.is_error === true,
        text: resultText(block.content),
        ...(structured === undefined ? {} : { structuredContent: structured as JsonValue }),
      });
    }
    return events;
  };

  const result = (line: Json): CliEvent[] => {
    const usage = usageOf(line.usage, line.total_cost_usd);
    const isError = line.is_error === true || (typeof line.subtype === 'string' && line.subtype !== 'success');
    const errors = Array.isArray(line.errors) ? line.errors.filter((item): item is string => typeof item === 'string') : [];
    const text =
      typeof line.result === 'string'
        ? line.result
        : errors.length > 0
          ? errors.join('; ')
          : isError
            ? `Claude Code ended with ${String(line.subtype ?? 'an error')}`
            : '';
    return [
      ...endTurn(),
      {
        kind: 'final',
        text,
        isError,
        ...(usage === undefined ? {} : { usage }),
        ...(typeof line.num_turns === 'number' ? { turns: line.num_turns } : {}),
        permissionDenials: list(line.permission_denials).map((denial) => ({
          tool: String(denial.tool_name),
          ...(typeof denial.tool_use_id === 'string' ? { callId: denial.tool_use_id } : {}),
        })),
      },
    ];
  };

  return {
    line(text) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return [{ kind: 'malformed', line: text, reason: 'not JSON' }];
      }
      const line = record(parsed);
      if (typeof line.type !== 'string') return [{ kind: 'malformed', line: text, reason: 'no "type"' }];
      switch (line.type) {
        case 'system':
          return line.subtype === 'init' && typeof line.session_id === 'string'
            ? [
                {
                  kind: 'session-started',
                  sessionId: line.session_id,
                  ...(typeof line.model === 'string' ? { model: line.model } : {}),
                  tools: Array.isArray(line.tools) ? line.tools.map(String) : [],
                },
              ]
            : [];
        case 'assistant':
          return assistant(line);
        case 'user':
          return user(line);
        case 'result':
          return result(line);
        default:
          return [];
      }
    },
  };
}
