// weft inside an application's own HTTP server: the app keeps its routes, weft adds its API
// (/api/v1), its MCP server (/mcp) and the dashboard (/) behind a bearer token.
//   WEFT_TOKEN=$(openssl rand -hex 32) node examples/library/mount-server.mjs
// then e.g. curl -H "Authorization: Bearer $WEFT_TOKEN" http://127.0.0.1:8080/api/v1/runs
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWeft } from 'weft-runtime';
import { createWeftHttpHandler } from 'weft-runtime/server';

const weft = await createWeft({ cwd: dirname(fileURLToPath(import.meta.url)) });
const weftHandler = await createWeftHttpHandler({ weft, token: process.env.WEFT_TOKEN });

// The application's own route; every path weft does not serve comes here.
const app = (req, res) => {
  if (req.url === '/health') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  res.writeHead(404).end();
};

const server = createServer((req, res) => weftHandler.listener(req, res, () => app(req, res)));
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await weftHandler.close();
    server.close();
    server.closeAllConnections();
    await weft.close();
  });
}
