// Embeds weft in a program: runs release.mjs on a storage dir ($WEFT_HOME or ~/.weft) and
// prints each finished stage as it happens.   node examples/library/embed-runs.mjs
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWeft } from 'weft-runtime';

const weft = await createWeft({ cwd: dirname(fileURLToPath(import.meta.url)) });
const run = await weft.createRun({ workflow: 'release.mjs', inputs: { version: '2.1.0' }, autoApprove: true });
for await (const event of weft.follow(run.id)) {
  if (event.type === 'stage-finished') console.log(`${event.stageId} ${event.payload.status}: ${JSON.stringify(event.payload.output)}`);
}
console.log(`run ${(await weft.getRun(run.id)).status}`);
await weft.close();
