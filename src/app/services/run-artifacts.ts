/**
 * What a run produced as artifacts: the full tool outputs the output budget kept when it cut
 * what the model saw. The list comes from the run's log (each `tool-call-finished` that names
 * an `artifactPath`), so only what the run itself wrote can be listed or read: an artifact is
 * asked for by the seq of its event, never by a path from outside. A file must still lie,
 * by real path, under `<storage dir>/artifacts/`; one kept in the database
 * (`weft-artifact:<id>`, PostgreSQL) is read through the store.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { WeftError } from '../../core/errors.js';
import { RUN_EVENT } from '../../runs/model/event-types.js';
import type { RunEvent } from '../../runs/model/run-event.js';
import type { RunService } from './run-service.js';

const DATABASE_REF = 'weft-artifact:';
/** Events read per page while listing (the store's cap). */
const PAGE = 1000;

export interface RunArtifact {
  /** Seq of the `tool-call-finished` event that saved it: what `read` takes. */
  seq: number;
  stageId: string | null;
  tool: string;
  /** A name to show and to download under. */
  name: string;
  /** Where it is kept: a file path, or `weft-artifact:<id>` in the database. */
  ref: string;
  /** Its size, when it is a file that still exists; null otherwise. */
  bytes: number | null;
  at: number;
}

export interface RunArtifactDeps {
  runs: RunService;
  storageDir: string;
  /** Reads an artifact kept in the database (PostgreSQL stores); absent where none are. */
  readStored?: (ref: string) => Promise<string>;
}

function artifactPath(event: RunEvent): string | undefined {
  const path = event.payload.artifactPath;
  return event.type === RUN_EVENT.toolCallFinished && typeof path === 'string' && path !== '' ? path : undefined;
}

async function fileSize(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

export async function listRunArtifacts(deps: RunArtifactDeps, runRef: string): Promise<RunArtifact[]> {
  const artifacts: RunArtifact[] = [];
  for (let afterSeq = 0; ;) {
    const events = await deps.runs.events(runRef, { types: [RUN_EVENT.toolCallFinished], afterSeq, limit: PAGE });
    for (const event of events) {
      const ref = artifactPath(event);
      if (ref === undefined) continue;
      const stored = ref.startsWith(DATABASE_REF);
      artifacts.push({
        seq: event.seq,
        stageId: event.stageId ?? null,
        tool: typeof event.payload.tool === 'string' ? event.payload.tool : 'tool',
        name: stored ? `${ref.slice(DATABASE_REF.length)}.txt` : basename(ref),
        ref,
        bytes: stored ? null : await fileSize(ref),
        at: event.at,
      });
    }
    if (events.length < PAGE) return artifacts;
    afterSeq = events.at(-1)!.seq;
  }
}

/** The content of the artifact the run's event `seq` saved, as a stream of bytes, with its name. */
export async function readRunArtifact(
  deps: RunArtifactDeps,
  runRef: string,
  seq: number,
): Promise<{ name: string; body: ReadableStream<Uint8Array> }> {
  const [event] = await deps.runs.events(runRef, { afterSeq: seq - 1, limit: 1 });
  const ref = event?.seq === seq ? artifactPath(event) : undefined;
  if (ref === undefined) {
    throw new WeftError(
      'FILE_NOT_FOUND',
      `Run ${runRef} saved no artifact at event ${seq}; the run page's Artifacts list (GET /api/v1/runs/${runRef}/artifacts) names those it has.`,
      { data: { file: `${runRef}/artifacts/${seq}` } },
    );
  }
  if (ref.startsWith(DATABASE_REF)) {
    if (deps.readStored === undefined)
      throw new WeftError('FILE_NOT_FOUND', `Artifact ${ref} is kept in a database this server does not use.`, { data: { file: ref } });
    const text = await deps.readStored(ref);
    return { name: `${ref.slice(DATABASE_REF.length)}.txt`, body: new Blob([text]).stream() };
  }
  const path = await confinedPath(deps.storageDir, ref);
  return { name: basename(path), body: Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array> };
}

/** The real path of `ref`, refused unless it lies under `<storage dir>/artifacts/` (a symlink counts by where it points). */
async function confinedPath(storageDir: string, ref: string): Promise<string> {
  let root: string;
  let path: string;
  try {
    [root, path] = await Promise.all([realpath(join(storageDir, 'artifacts')), realpath(ref)]);
  } catch (error) {
    throw new WeftError('FILE_NOT_FOUND', `The artifact file ${basename(ref)} is gone (pruned, or kept on another host's storage dir).`, {
      data: { file: basename(ref) },
      cause: error,
    });
  }
  if (!path.startsWith(`${root}${sep}`)) {
    throw new WeftError(
      'PATH_OUTSIDE_WORKSPACE',
      `The artifact ${basename(ref)} is not under this server's artifacts folder; it is not served.`,
      { data: { path: basename(ref) } },
    );
  }
  return path;
}
