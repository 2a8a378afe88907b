/**
 * `/api/v1/runs/{id}/artifacts`: the full tool outputs a run kept (listed from its log), and
 * one of them as text, to view or (`download=true`) to save. An artifact is named by the
 * seq of the event that saved it, never by a path.
 */
import * as z from 'zod';
import { listRunArtifacts, readRunArtifact, type RunArtifactDeps } from '../../../app/services/run-artifacts.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { HttpFailure } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';

const artifactSchema = z.object({
  seq: z.number().int().describe('Seq of the tool-call-finished event that saved it: GET /runs/{id}/artifacts/{seq} reads it'),
  stage_id: z.string().nullable(),
  tool: z.string(),
  name: z.string().describe('File name to show and to save under'),
  bytes: z.number().int().nullable().describe('Its size; null when kept in the database or gone'),
  at: z.string().describe('ISO 8601 time it was saved'),
});

export function runArtifactRoutes(deps: HttpDeps): ApiRoute[] {
  const artifacts = async (): Promise<RunArtifactDeps> => ({
    runs: await deps.runs(),
    storageDir: deps.storageDir,
    ...(deps.readArtifact ? { readStored: deps.readArtifact } : {}),
  });
  return [
    defineRoute({
      method: 'get',
      path: '/runs/{id}/artifacts',
      summary: 'The full tool outputs the run kept when they were cut for the model, oldest first',
      response: z.object({ artifacts: z.array(artifactSchema) }),
      async handle({ params }) {
        const list = await listRunArtifacts(await artifacts(), params.id!);
        return {
          json: {
            artifacts: list.map((item) => ({
              seq: item.seq,
              stage_id: item.stageId,
              tool: item.tool,
              name: item.name,
              bytes: item.bytes,
              at: new Date(item.at).toISOString(),
            })),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/runs/{id}/artifacts/{seq}',
      summary: 'One artifact of the run, as text (download=true: as a file to save)',
      query: z.object({ download: z.enum(['true', 'false']).default('false') }).strict(),
      produces: { 'text/plain': 'The whole tool output, secrets redacted as when it was saved' },
      async handle({ params, query }) {
        const seq = Number(params.seq);
        if (!Number.isSafeInteger(seq) || seq < 1)
          throw new HttpFailure(
            'INVALID_ARGUMENTS',
            `Invalid path: seq '${params.seq}' must be a positive whole number, as the run's artifact list gives it.`,
          );
        const { name, body } = await readRunArtifact(await artifacts(), params.id!, seq);
        const disposition = `${query.download === 'true' ? 'attachment' : 'inline'}; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
        return new Response(body, {
          headers: { 'content-type': 'text/plain; charset=utf-8', 'content-disposition': disposition, 'x-content-type-options': 'nosniff' },
        });
      },
    }),
  ];
}
