/**
 * bench/mcp-call phase (b): the bare official SDK v2 client (`@modelcontextprotocol/client`
 * and its stdio transport), one `Client` per server — the baseline the hub is held to.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { connectEach, firstText, serverEnvironment, type ClientDriver, type EchoServer } from './driver.js';

async function connectOne(server: EchoServer): Promise<Client> {
  const client = new Client({ name: 'bench-v2', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [server.script], env: serverEnvironment(server), stderr: 'inherit' }),
  );
  await client.listTools();
  return client;
}

export const v2Driver: ClientDriver = {
  label: 'bare SDK v2 client',
  async connect(servers, order) {
    const clients = await connectEach(servers, order, connectOne);
    return {
      callers: [
        {
          key: 'sdk',
          label: 'Client.callTool',
          async call(index, name, args) {
            const client = clients[index];
            if (!client) throw new Error(`no server #${index}`);
            return firstText(await client.callTool({ name, arguments: args }));
          },
        },
        {
          // Only with `--variants`: what one abort signal per call costs the bare client
          // (the hub always forwards the caller's signal to the SDK).
          key: 'sdk-signal',
          label: 'Client.callTool + a fresh AbortSignal per call',
          async call(index, name, args) {
            const client = clients[index];
            if (!client) throw new Error(`no server #${index}`);
            return firstText(await client.callTool({ name, arguments: args }, { signal: new AbortController().signal }));
          },
        },
      ],
      async close() {
        await Promise.all(clients.map((client) => client.close()));
      },
    };
  },
};
