/**
 * Reads `gemini -p … --output-format stream-json` (Gemini CLI 0.61): one JSON object per
 * line.
 *
 *   {"type":"init","session_id":"…","model":"gemini-2.5-flash"}
 *   {"type":"message","role":"user","content":"…"}
 *   {"type":"tool_use","tool_name":"run_shell_command","tool_id":"…","parameters":{…}}
 *   {"type":"tool_result","tool_id":"…","status":"success","output":"hi"}
 *   {"type":"message","role":"assistant","content":"don","delta":true}
 *   {"type":"result","status":"success","stats":{"input_tokens":300,"output_tokens":60,…}}
 *
 * The answer is the model's text after its last tool result (what it said last), or all
 * of its text when it used no tool. A `result` with `status: "error"` ends the session
 * with its error; a 401 or a refused key is a login the stage needs.
 */
import type { CliStreamParser, CliUsage } from './cli-adapter.js';
import { jsonLine, numberField, objectField, stringField } from './stream-json.js';

const LOGIN_MESSAGE = /\b401\b|UNAUTHENTICATED|API key not valid|must specify the GEMINI_API_KEY|Invalid auth method/i;

export function geminiLoginRequired(message: string): boolean {
  return LOGIN_MESSAGE.test(message);
}

function usageOf(stats: ReturnType<typeof objectField>): CliUsage | undefined {
  if (stats === undefined) return undefined;
  return { inputTokens: numberField(stats, 'input_tokens') ?? 0, outputTokens: numberField(stats, 'output_tokens') ?? 0 };
}

/**
 * @example
 * const parser = geminiStreamParser();
 * parser.line('{"type":"init","session_id":"s1","model":"gemini-2.5-flash"}'); // [{ kind: 'session-started', sessionId: 's1', model: 'gemini-2.5-flash' }]
 */
export function geminiStreamParser(): CliStreamParser {
  let answer = '';

  return {
    line(text) {
      const event = jsonLine(text);
      if (event === undefined) return [{ kind: 'malformed', line: text, reason: 'not a JSON object' }];
      switch (event.type) {
        case 'init': {
          const sessionId = stringField(event, 'session_id');
          const model = stringField(event, 'model');
          if (sessionId === undefined) return [{ kind: 'malformed', line: text, reason: 'init without session_id' }];
          return [{ kind: 'session-started', sessionId, ...(model === undefined ? {} : { model }) }];
        }
        case 'message': {
          const content = stringField(event, 'content') ?? '';
          if (event.role !== 'assistant' || content === '') return [];
          answer += content;
          return [{ kind: 'text', text: content }];
        }
        case 'tool_use':
          answer = '';
          return [
            {
              kind: 'tool-call-requested',
              callId: stringField(event, 'tool_id') ?? '',
              tool: stringField(event, 'tool_name') ?? '?',
              arguments: event.parameters ?? {},
            },
          ];
        case 'tool_result': {
          const error = objectField(event.error);
          const output = stringField(event, 'output') ?? (error === undefined ? '' : (stringField(error, 'message') ?? ''));
          return [{ kind: 'tool-result', callId: stringField(event, 'tool_id') ?? '', isError: event.status !== 'success', text: output }];
        }
        case 'error': {
          // Warnings (a loop detected, a retry) do not end the session; the result line says how it ended.
          if (event.severity === 'warning') return [];
          const message = stringField(event, 'message') ?? 'Gemini CLI reported an error';
          return [{ kind: 'error', message, ...(geminiLoginRequired(message) ? { loginRequired: true } : {}) }];
        }
        case 'result': {
          const usage = usageOf(objectField(event.stats));
          const extra = usage === undefined ? {} : { usage };
          if (event.status === 'success') return [{ kind: 'final', text: answer, isError: false, ...extra }];
          const message = stringField(objectField(event.error) ?? {}, 'message') ?? `the session ended with status ${String(event.status)}`;
          return [
            { kind: 'error', message, ...(geminiLoginRequired(message) ? { loginRequired: true } : {}) },
            { kind: 'final', text: message, isError: true, ...extra },
          ];
        }
        case undefined:
          return [{ kind: 'malformed', line: text, reason: 'no "type" field' }];
        default:
          return [];
      }
    },
  };
}
