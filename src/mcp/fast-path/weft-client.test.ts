import { Client, InMemoryTransport, LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { WeftClient } from './weft-client.js';

/**
 * A peer over the SDK's in-memory transport that answers `initialize` and then every
 * `tools/call` with the raw result `answer` gives; the client under test is either the
 * SDK's `Client` or `WeftClient`, so both meet exactly the same wire.
 */
async function connect(kind: typeof Client, answer: (params: unknown) => unknown): Promise<{ client: Client; calls: () => number }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let calls = 0;
  serverSide.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || !('method' in message)) return;
    const result =
      message.method === 'initialize'
        ? { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'peer', version: '1' } }
        : message.method === 'tools/call'
          ? ((calls += 1), answer(message.params))
          : {};
    void serverSide.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
  };
  await serverSide.start();
  const client = new kind({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return { client, calls: () => calls };
}

const outcome = async (call: Promise<unknown>) =>
  call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error) }),
  );

const RESULTS: Record<string, unknown> = {
  'a text result': { content: [{ type: 'text', text: 'hi' }], isError: false },
  'a result with structured content and _meta': { content: [], structuredContent: { n: 1 }, _meta: { note: 'x' } },
  'a result without content (normalized)': {},
  'content that is not an array': { content: 'nope' },
  'a content block of an unknown type': { content: [{ type: 'hologram' }] },
  'isError that is not a boolean': { content: [], isError: 'yes' },
  'another result family without content': { messages: [] },
};

describe('WeftClient', () => {
  it.each(Object.entries(RESULTS))('treats %s exactly as the SDK client does', async (_, result) => {
    const stock = await connect(Client, () => result);
    const weft = await connect(WeftClient, () => result);
    const [expected, actual] = await Promise.all([
      outcome(stock.client.callTool({ name: 't', arguments: {} })),
      outcome(weft.client.callTool({ name: 't', arguments: {} })),
    ]);
    expect(actual).toEqual(expected);
    await Promise.all([stock.client.close(), weft.client.close()]);
  });

  it('validates every call, not only the first, with the validator it keeps', async () => {
    let good = true;
    const weft = await connect(WeftClient, () => (good ? { content: [{ type: 'text', text: 'ok' }] } : { content: 5 }));
    await expect(weft.client.callTool({ name: 't' })).resolves.toMatchObject({ content: [{ text: 'ok' }] });
    good = false;
    await expect(weft.client.callTool({ name: 't' })).rejects.toThrow(/Invalid result for tools\/call/);
    good = true;
    await expect(weft.client.callTool({ name: 't' })).resolves.toMatchObject({ content: [{ text: 'ok' }] });
    expect(weft.calls()).toBe(3);
    await weft.client.close();
  });
});
