/**
 * `/api/v1/workflows`: the workspace's workflow files, validation of a file or of TOML
 * text, and a workflow's graph as Mermaid, DOT or SVG (the renderer `weft workflow graph` uses);
 * and a run's graph coloured by stage state (the one `weft inspect --graph` draws).
 */
import * as z from 'zod';
import { drawWorkflow, listWorkflows, validateWorkflow } from '../../../app/services/workflow-catalog.js';
import { drawRunGraph } from '../../../app/views/run-graph.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { HttpFailure } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';

const problemSchema = z.object({ file: z.string(), line: z.number().int(), message: z.string() });
const inputSchema = z.object({
  name: z.string(),
  type: z.string().nullable(),
  description: z.string().nullable(),
  required: z.boolean(),
  default: z.unknown().describe('null when none'),
});
const checkSchema = z.object({ valid: z.boolean(), name: z.string().nullable(), problems: z.array(problemSchema) });

const graphQuery = z.object({ format: z.enum(['mermaid', 'dot', 'svg']) }).strict();
const GRAPH_TYPES = { 'text/plain': 'Mermaid flowchart', 'text/vnd.graphviz': 'DOT digraph', 'image/svg+xml': 'SVG drawing' };

const MEDIA_TYPES = { mermaid: 'text/plain; charset=utf-8', dot: 'text/vnd.graphviz; charset=utf-8', svg: 'image/svg+xml' } as const;

export function workflowRoutes(deps: HttpDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows',
      summary: 'The workflow files under the workspace, each checked',
      response: z.object({
        workflows: z.array(
          checkSchema.extend({
            path: z.string().describe('Relative to the workspace'),
            inputs: z.array(inputSchema).describe('Its [inputs], in declaration order'),
            goal: z.string().nullable().describe('Its [run] goal'),
          }),
        ),
      }),
      async handle() {
        return { json: { workflows: await listWorkflows(deps.workspaceRoot) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/validate',
      summary: 'Check a workflow file of the workspace ({path}) or workflow text ({toml}); every problem with file and line',
      body: z
        .object({
          path: z.string().min(1).optional(),
          toml: z
            .string()
            .min(1)
            .max(256 * 1024)
            .optional(),
        })
        .strict(),
      response: checkSchema,
      async handle({ body }) {
        if ((body.path === undefined) === (body.toml === undefined))
          throw new HttpFailure('INVALID_ARGUMENTS', 'Invalid body: give either path or toml, not both or neither.');
        return { json: await validateWorkflow(deps.workspaceRoot, body.toml !== undefined ? { toml: body.toml } : { path: body.path! }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workflows/graph',
      summary: 'Draw a workflow file as Mermaid (default), DOT or SVG',
      query: graphQuery.extend({ path: z.string().min(1), format: graphQuery.shape.format.default('mermaid') }),
      produces: GRAPH_TYPES,
      async handle({ query, context }) {
        const text = await drawWorkflow(deps.workspaceRoot, query.path, query.format);
        return context.body(text, 200, { 'content-type': MEDIA_TYPES[query.format] });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/runs/{id}/graph',
      summary: "A run's workflow drawn as SVG (default), Mermaid or DOT, each node coloured by its latest stage's state",
      query: graphQuery.extend({ format: graphQuery.shape.format.default('svg') }),
      produces: GRAPH_TYPES,
      async handle({ params, query, context }) {
        const text = await drawRunGraph(await deps.runs(), params.id!, query.format);
        return context.body(text, 200, { 'content-type': MEDIA_TYPES[query.format] });
      },
    }),
  ];
}
