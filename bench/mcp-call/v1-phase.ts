/**
 * bench/mcp-call phase (c): the bare SDK v1 client (`@modelcontextprotocol/sdk`, a dev
 * dependency), one `Client` per server — the client most other agent frameworks use.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectEach, firstText, serverEnvironment, type ClientDriver, type EchoServer } from './driver.js';

async function connectOne(server: EchoServer): Promise<Client> {
  const client = new Client({ name: 'bench-v1', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [server.script], env: serverEnvironment(server), stderr: 'inherit' }),
  );
  await client.listTools();
  return client;
}

export const v1Driver: ClientDriver = {
  label: 'bare SDK v1 client',
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
      ],
      async close() {
        await Promise.all(clients.map((client) => client.close()));
      },
    };
  },
};
