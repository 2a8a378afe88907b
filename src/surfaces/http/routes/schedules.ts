/**
 * `/api/v1/schedules` (list, add, read, pause, resume, remove) and
 * `POST /api/v1/triggers/{name}`, the webhook delivery. A delivery carries no bearer token:
 * its HMAC signature is its authentication, checked by the trigger service against the raw
 * body before anything is parsed or stored; the shared 1 MiB body limit answers 413 first.
 */
import * as z from 'zod';
import { WeftError } from '../../../core/errors.js';
import type { ScheduleService } from '../../../app/services/schedule-service.js';
import type { TriggerService } from '../../../app/services/trigger-service.js';
import { scheduleSchema, scheduleView, triggerSchema, triggerView } from '../../../app/views/schedule-view.js';
import { defineRoute, type ApiRoute } from '../api-route.js';
import { errorAnswer } from '../error-response.js';
import type { HttpDeps } from '../http-deps.js';

const addBody = z
  .object({
    name: z.string().min(1).max(63).describe('Letters, digits, . _ - (starts with a letter or digit)'),
    workflow: z.string().min(1).describe("The workflow file, relative to the server's workspace"),
    cron: z.string().min(1).describe('Five fields, or six with seconds first'),
    timezone: z.string().min(1).optional().describe('IANA time zone (default: the worker’s)'),
    inputs: z.record(z.string(), z.unknown()).optional(),
    catch_up: z.enum(['none', 'last', 'all']).optional().describe('Due times missed while no worker ran (default none)'),
    overlap: z.enum(['skip', 'queue', 'cancel-previous']).optional().describe('When the previous run is still going (default skip)'),
    auto_approve: z.boolean().optional(),
    replace: z.boolean().optional().describe('Replace a schedule of that name'),
  })
  .strict();

const deliveryAnswer = z.object({
  run_id: z.string(),
  created: z.boolean().describe('false: this delivery id was seen before; run_id is the first delivery’s run'),
});

function schedulesOf(deps: HttpDeps): () => Promise<ScheduleService> {
  return async () => {
    if (deps.schedules === undefined) throw new WeftError('USAGE', 'This server was started without schedules.');
    return deps.schedules();
  };
}

function triggersOf(deps: HttpDeps): () => Promise<TriggerService> {
  return async () => {
    if (deps.triggers === undefined) throw new WeftError('USAGE', 'This server was started without triggers.');
    return deps.triggers();
  };
}

export function scheduleRoutes(deps: HttpDeps): ApiRoute[] {
  const schedules = schedulesOf(deps);
  const triggers = triggersOf(deps);
  return [
    defineRoute({
      method: 'get',
      path: '/schedules',
      summary: 'The schedules with their next due time (made only while a worker ticks)',
      response: z.object({ schedules: z.array(scheduleSchema) }),
      async handle() {
        return { json: { schedules: (await (await schedules()).list()).map((schedule) => scheduleView(schedule)) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/schedules',
      summary: 'Add a schedule: each due time makes one run of the workflow across every worker',
      body: addBody,
      response: z.object({ schedule: scheduleSchema }),
      status: 201,
      async handle({ body }) {
        const added = await (
          await schedules()
        ).add({
          name: body.name,
          workflow: body.workflow,
          cwd: deps.workspaceRoot,
          workflowInsideCwd: true,
          cron: body.cron,
          ...(body.timezone === undefined ? {} : { timezone: body.timezone }),
          inputs: body.inputs ?? {},
          ...(body.catch_up === undefined ? {} : { catchUp: body.catch_up }),
          ...(body.overlap === undefined ? {} : { overlap: body.overlap }),
          ...(body.auto_approve === undefined ? {} : { autoApprove: body.auto_approve }),
          source: 'api',
          replace: body.replace === true,
        });
        return { status: 201, json: { schedule: scheduleView(added) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/schedules/{name}',
      summary: 'A schedule and its last due times with their runs',
      response: z.object({ schedule: scheduleSchema }),
      async handle({ params }) {
        const view = await (await schedules()).get(params.name!);
        return { json: { schedule: scheduleView(view, view.recent) } };
      },
    }),
    ...(['pause', 'resume'] as const).map((verb) =>
      defineRoute({
        method: 'post',
        path: `/schedules/{name}/${verb}`,
        summary:
          verb === 'pause'
            ? 'Pause a schedule (no runs until resumed)'
            : 'Resume a schedule from the next due time after now (times passed while paused are not caught up)',
        response: z.object({ schedule: scheduleSchema }),
        async handle({ params }) {
          const service = await schedules();
          return {
            json: { schedule: scheduleView(verb === 'pause' ? await service.pause(params.name!) : await service.resume(params.name!)) },
          };
        },
      }),
    ),
    defineRoute({
      method: 'delete',
      path: '/schedules/{name}',
      summary: 'Remove a schedule (its runs stay)',
      status: 204,
      async handle({ params }) {
        await (await schedules()).remove(params.name!);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/triggers',
      summary: 'The webhook triggers (added with weft trigger add)',
      response: z.object({ triggers: z.array(triggerSchema) }),
      async handle() {
        return { json: { triggers: (await (await triggers()).list()).map(triggerView) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/triggers/{name}',
      summary:
        'Deliver a webhook: a JSON body signed with X-Hub-Signature-256: sha256=<HMAC-SHA256 hex of the raw body> (no bearer token) and a delivery id (X-GitHub-Delivery or X-Weft-Delivery); makes one run per delivery id. 401 unsigned or badly signed, 400 malformed, 404 unknown trigger, 413 over 1 MiB, 503 secret not set on the server',
      auth: false,
      response: deliveryAnswer,
      status: 201,
      async handle({ params, context }) {
        const body = new Uint8Array(await context.req.arrayBuffer());
        const result = await (await triggers()).deliver({ name: params.name!, body, header: (name) => context.req.header(name) });
        if (!result.ok) {
          const refusal = errorAnswer(result.code, result.message);
          return context.json(refusal.body, refusal.status);
        }
        return { status: result.created ? 201 : 200, json: { run_id: result.runId, created: result.created } };
      },
    }),
  ];
}
