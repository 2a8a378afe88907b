/**
 * The OpenAPI 3.1 document of `/api/v1`, generated from the route declarations: paths,
 * parameters, request bodies and answers come from the same zod schemas that validate
 * requests (JSON Schema 2020-12, which OpenAPI 3.1 uses as is).
 */
import * as z from 'zod';
import { API_PREFIX, type ApiRoute } from './api-route.js';
import { ERROR_STATUSES } from './error-response.js';

type JsonSchema = Record<string, unknown>;

const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'hint'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' } },
    },
  },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function parameters(route: ApiRoute): JsonSchema[] {
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (!route.query) return path;
  const query = jsonSchema(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const required = new Set(query.required ?? []);
  const fromQuery = Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  }));
  return [...path, ...fromQuery];
}

function operation(route: ApiRoute): JsonSchema {
  const status = String(route.status ?? 200);
  const content: Record<string, JsonSchema> = {};
  if (route.response) content['application/json'] = { schema: jsonSchema(route.response, 'output') };
  for (const [type, description] of Object.entries(route.produces ?? {})) content[type] = { schema: { type: 'string', description } };
  const errors = Object.fromEntries(ERROR_STATUSES.map((code) => [String(code), { $ref: '#/components/responses/Error' }]));
  return {
    summary: route.summary,
    operationId: `${route.method}${route.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(\w)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase())}`,
    ...(route.auth === false ? { security: [] } : {}),
    parameters: parameters(route),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
      : {}),
    responses: {
      [status]: { description: status === '204' ? 'No content' : 'OK', ...(Object.keys(content).length > 0 ? { content } : {}) },
      ...errors,
    },
  };
}

/** @example openApiDocument(routes, '0.1.0').paths['/api/v1/runs'].get.summary */
export function openApiDocument(
  routes: readonly ApiRoute[],
  version: string,
): { openapi: string; paths: Record<string, Record<string, JsonSchema>> } & JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) (paths[API_PREFIX + route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'weft HTTP API',
      version,
      description: 'Runs, events (Server-Sent Events), questions, approvals and the MCP server catalogue of weft serve.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { session: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, session: { type: 'apiKey', in: 'cookie', name: 'weft_session' } },
      responses: { Error: { description: 'A weft error', content: { 'application/json': { schema: errorSchema } } } },
    },
    paths,
  };
}
