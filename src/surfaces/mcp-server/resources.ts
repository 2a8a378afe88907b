/**
 * weft's MCP resources: `weft://runs` (the most recent runs), `weft://runs/{run_id}` (one
 * run's summary and pending questions) and `weft://runs/{run_id}/events` (its latest
 * events), all JSON. Clients can subscribe to any of them and get
 * `notifications/resources/updated` when it changes: 2025-era connections with
 * `resources/subscribe`, 2026-era ones with `subscriptions/listen` (listen-watches.ts).
 */
import {
  ProtocolError,
  ResourceNotFoundError,
  ResourceTemplate,
  type McpServer,
  type ReadResourceResult,
} from '@modelcontextprotocol/server';
import { EVENT_LIMITS } from '../../runs/store/run-store.js';
import { completeRunId } from './complete-run-id.js';
import { toProtocolError } from './error-codes.js';
import { parseRunResource, RUN_EVENTS_URI_TEMPLATE, RUN_URI_TEMPLATE, RUNS_URI, runUri, type RunResource } from './resource-uri.js';
import { eventView, questionView, runPreview, runSummary } from '../../app/views/run-view.js';
import { RECENT_RUNS } from './run-watcher.js';
import type { McpServerDeps } from './tool-kit.js';

const JSON_MIME = 'application/json';
/** `weft://runs/{id}/events` shows the latest events; weft_run_events pages through all of them. */
const RESOURCE_EVENTS = 200;

function parse(uri: string): RunResource {
  let resource: RunResource | undefined;
  try {
    resource = parseRunResource(uri);
  } catch (error) {
    throw toProtocolError(error);
  }
  if (!resource)
    throw new ResourceNotFoundError(
      uri,
      `Unknown resource ${uri.slice(0, 120)}: weft serves ${RUNS_URI}, ${RUN_URI_TEMPLATE} and ${RUN_EVENTS_URI_TEMPLATE}.`,
    );
  return resource;
}

async function read(deps: McpServerDeps, uri: string): Promise<ReadResourceResult> {
  const resource = parse(uri);
  try {
    const runs = await deps.runs();
    let body: unknown;
    switch (resource.kind) {
      case 'runs': {
        const page = await runs.search({ limit: RECENT_RUNS });
        body = { runs: page.runs.map(runPreview), more: page.nextCursor !== undefined };
        break;
      }
      case 'run': {
        const run = await runs.get(resource.runId);
        const questions = run.counts.questionsPending > 0 ? await runs.questions(run.id, true) : [];
        body = { run: runSummary(run), pending_questions: questions.map(questionView) };
        break;
      }
      case 'events': {
        const run = await runs.get(resource.runId);
        const latest = await runs.events(run.id, { direction: 'desc', limit: Math.min(RESOURCE_EVENTS, EVENT_LIMITS.max) });
        body = {
          run_id: run.id,
          total_events: run.counts.events,
          events: latest.reverse().map((event) => eventView(event, 2000)),
          note:
            run.counts.events > RESOURCE_EVENTS
              ? `The latest ${RESOURCE_EVENTS} events; page through all of them with weft_run_events.`
              : null,
        };
        break;
      }
      default: {
        const unknown: never = resource;
        throw new Error(`unknown resource ${String(unknown)}`);
      }
    }
    return { contents: [{ uri, mimeType: JSON_MIME, text: JSON.stringify(body) }] };
  } catch (error) {
    throw toProtocolError(error);
  }
}

export function registerResources(server: McpServer, deps: McpServerDeps): void {
  server.registerResource(
    'weft-runs',
    RUNS_URI,
    {
      title: 'Recent weft runs',
      description: `The ${RECENT_RUNS} most recent runs (archived ones hidden), newest first`,
      mimeType: JSON_MIME,
    },
    (uri) => read(deps, uri.href),
  );
  server.registerResource(
    'weft-run',
    new ResourceTemplate(RUN_URI_TEMPLATE, {
      list: async () => {
        const page = await (await deps.runs()).search({ limit: RECENT_RUNS });
        return {
          resources: page.runs.map((run) => ({
            uri: runUri(run.id),
            name: `run ${run.id}`,
            title: `${run.workflow} · ${run.status}`,
            description: runPreview(run).goal_preview,
            mimeType: JSON_MIME,
          })),
        };
      },
      complete: { run_id: (value) => completeRunId(deps, value) },
    }),
    { title: 'A weft run', description: "One run's summary and pending questions", mimeType: JSON_MIME },
    (uri) => read(deps, uri.href),
  );
  server.registerResource(
    'weft-run-events',
    new ResourceTemplate(RUN_EVENTS_URI_TEMPLATE, { list: undefined }),
    { title: "A weft run's events", description: `The latest ${RESOURCE_EVENTS} events of one run, oldest first`, mimeType: JSON_MIME },
    (uri) => read(deps, uri.href),
  );
}

/**
 * The resource `uri` names, once it is one a client may subscribe to: a URI weft serves,
 * naming a run that exists. Throws the protocol error to answer otherwise.
 */
export async function subscribable(deps: McpServerDeps, uri: string): Promise<RunResource> {
  const resource = parse(uri);
  if (resource.kind !== 'runs') {
    try {
      await (await deps.runs()).get(resource.runId);
    } catch (error) {
      throw toProtocolError(error);
    }
  }
  return resource;
}

/**
 * `resources/subscribe` and `resources/unsubscribe` for one connection (2025-era
 * protocol); returns the function that drops the connection's subscriptions.
 */
export function registerSubscriptions(server: McpServer, deps: McpServerDeps): () => void {
  const subscriptions = new Map<string, Promise<() => void>>();
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    const uri = request.params.uri;
    const resource = await subscribable(deps, uri);
    if (!subscriptions.has(uri)) {
      const stop = deps.watcher.watch(
        uri,
        resource,
        (changed) => void server.server.sendResourceUpdated({ uri: changed }).catch(() => undefined),
      );
      subscriptions.set(uri, stop);
      await stop.catch((error: unknown) => {
        subscriptions.delete(uri);
        throw error instanceof ProtocolError ? error : toProtocolError(error);
      });
    }
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    const stop = subscriptions.get(request.params.uri);
    subscriptions.delete(request.params.uri);
    if (stop) (await stop)();
    return {};
  });
  return () => {
    for (const stop of subscriptions.values()) void stop.then((unsubscribe) => unsubscribe());
    subscriptions.clear();
  };
}
