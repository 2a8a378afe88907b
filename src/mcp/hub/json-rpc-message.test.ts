import { deserializeMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { parseJsonRpcLine } from './json-rpc-message.js';

/** The SDK's own reading of a line: the message, or undefined where it throws. */
function viaUnion(line: string): unknown {
  try {
    return deserializeMessage(line);
  } catch {
    return undefined;
  }
}

const LINES = {
  request: '{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5,"_meta":{"progressToken":7}}}',
  'request with a string id': '{"jsonrpc":"2.0","id":"a","method":"ping"}',
  notification: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}',
  result: '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}],"extra":{"kept":true}}}',
  error: '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no such method","data":{"x":1}}}',
  'error without an id': '{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}',
  'result and error both': '{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}',
  'request with a stray key': '{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}',
  'notification with a fractional id': '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  'wrong version': '{"jsonrpc":"1.0","id":3,"result":{}}',
  'no version': '{"id":3,"result":{}}',
  'error code not an integer': '{"jsonrpc":"2.0","id":3,"error":{"code":"x","message":"m"}}',
  'result not an object': '{"jsonrpc":"2.0","id":3,"result":5}',
  'an array': '[{"jsonrpc":"2.0","method":"ping"}]',
  'a number': '42',
  null: 'null',
  'not JSON': 'Server listening on stdio',
  'an empty object': '{}',
} as const;

describe('parseJsonRpcLine', () => {
  it.each(Object.entries(LINES))('reads %s as the SDK union does', (_, line) => {
    expect(parseJsonRpcLine(line)).toEqual(viaUnion(line));
  });

  it('accepts each kind of message and refuses what is not JSON-RPC', () => {
    expect(parseJsonRpcLine(LINES.request)).toMatchObject({ id: 7, method: 'sampling/createMessage' });
    expect(parseJsonRpcLine(LINES.notification)).toMatchObject({ method: 'notifications/progress' });
    expect(parseJsonRpcLine(LINES.result)).toMatchObject({ id: 3, result: { extra: { kept: true } } });
    expect(parseJsonRpcLine(LINES.error)).toMatchObject({ error: { code: -32601 } });
    for (const refused of ['result and error both', 'request with a stray key', 'wrong version', 'not JSON', 'an array', 'null'] as const) {
      expect(parseJsonRpcLine(LINES[refused]), refused).toBeUndefined();
    }
  });
});
