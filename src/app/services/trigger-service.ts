/**
 * Webhook triggers (docs/schedules.md): a named trigger makes a run of its workflow from a
 * signed JSON delivery. Checks, in order, each refusal creating nothing: the trigger exists
 * (404), its secret is set on the server (503), the body is signed with it — HMAC-SHA256 of
 * the raw body in GitHub's `X-Hub-Signature-256: sha256=<hex>` form, compared in constant
 * time (401), the body is a JSON object (400), it carries a delivery id (400), the mapped
 * inputs fit the workflow (400). A delivery id seen before answers the first delivery's run
 * and creates nothing. The secret lives only in the server's environment: never stored,
 * logged or put in an event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { resolve } from 'node:path';
import { WeftError, type WeftErrorCode } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { parseJsonPath, readJsonPath } from '../../core/json-path.js';
import type { JsonObject } from '../../runs/model/json.js';
import { realPathInRunDir } from '../../runs/run-dir-path.js';
import { resolveInputs } from '../../runs/run-inputs.js';
import type { ScheduleStore, TriggerRecord, TriggerSpec } from '../../runs/store/schedule-store.js';
import { loadWorkflow } from '../../runs/workflow/index.js';
import type { RunService } from './run-service.js';

export const TRIGGER_LABEL = 'weft.trigger';
export const DELIVERY_LABEL = 'weft.delivery';
export const SIGNATURE_HEADERS = ['x-hub-signature-256', 'x-weft-signature-256'] as const;
export const DELIVERY_HEADERS = ['x-github-delivery', 'x-weft-delivery'] as const;

/** A recorded delivery with no run after this long was left by a server that died; a retry makes its run. */
const ORPHANED_DELIVERY_MS = 60_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/;

export interface TriggerRequest {
  name: string;
  workflow: string;
  cwd: string;
  secretEnv: string;
  /** `input=$.path` (or `input=literal`) entries. */
  inputMap?: Record<string, string>;
  autoApprove?: boolean;
  replace?: boolean;
  /** The workflow file must lie inside `cwd` by real path (a surface acting for a remote client). */
  workflowInsideCwd?: boolean;
}

export interface Delivery {
  name: string;
  body: Uint8Array;
  /** Header lookup, case-insensitive names. */
  header: (name: string) => string | undefined;
}

/** A refused delivery's code: the catalogue's (`core/error-catalogue.ts`), or the HTTP surface's `INVALID_JSON` for a body that is not a JSON object. */
export type DeliveryRefusalCode = WeftErrorCode | 'INVALID_JSON';

/** Made or found a run, or refused, creating nothing; the surface maps the code to its status. */
export type DeliveryResult = { ok: true; runId: string; created: boolean } | { ok: false; code: DeliveryRefusalCode; message: string };

export interface TriggerServiceDeps {
  store: ScheduleStore;
  runs: () => Promise<RunService>;
  clock: () => number;
  /** Where the secrets are read, at each delivery. */
  env: Record<string, string | undefined>;
}

function refuse(code: DeliveryRefusalCode, message: string): DeliveryResult {
  return { ok: false, code, message };
}

/** `input=$.path` strings (CLI `--input-map`) into a map; each path is checked. */
export function parseInputMap(entries: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    if (at <= 0)
      throw new WeftError(
        'TRIGGER_INVALID',
        `--input-map '${entry.slice(0, 80)}' must be input=$.path (e.g. number=$.pull_request.number).`,
        { data: { field: 'input_map', value: entry.slice(0, 80) } },
      );
    map[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return map;
}

export class TriggerService {
  readonly #deps: TriggerServiceDeps;

  constructor(deps: TriggerServiceDeps) {
    this.#deps = deps;
  }

  async add(request: TriggerRequest): Promise<TriggerRecord> {
    if (typeof request.name !== 'string' || !NAME.test(request.name)) {
      throw new WeftError(
        'TRIGGER_INVALID',
        `Trigger name '${String(request.name).slice(0, 80)}' must start with a letter or digit and use only letters, digits, '.', '_', '-' (at most 63 characters).`,
        { data: { field: 'name', value: String(request.name).slice(0, 80) } },
      );
    }
    if (typeof request.secretEnv !== 'string' || !ENV_NAME.test(request.secretEnv)) {
      throw new WeftError(
        'TRIGGER_INVALID',
        `--secret-env must name an environment variable (letters, digits, '_'), not '${String(request.secretEnv).slice(0, 80)}'; the secret itself stays in the server's environment.`,
        { data: { field: 'secret_env' } },
      );
    }
    const inputMap = request.inputMap ?? {};
    const cwd = resolve(request.cwd);
    const workflow = await loadWorkflow(
      request.workflowInsideCwd === true ? await realPathInRunDir(cwd, request.workflow, 'workflow') : resolve(cwd, request.workflow),
    );
    for (const [input, path] of Object.entries(inputMap)) {
      if (!Object.hasOwn(workflow.inputs ?? {}, input))
        throw new WeftError('TRIGGER_INVALID', `Input map names '${input}', which workflow '${workflow.name}' does not declare.`, {
          data: { field: 'input_map', value: input },
        });
      if (path.startsWith('$')) parseJsonPath(path);
    }
    if (request.replace !== true && (await this.#deps.store.getTrigger(request.name)) !== undefined) {
      throw new WeftError(
        'TRIGGER_EXISTS',
        `A trigger named '${request.name}' exists already; remove it first ('weft trigger rm ${request.name}') or pick another name.`,
        { data: { trigger: request.name } },
      );
    }
    const spec: TriggerSpec = {
      workflow: request.workflow,
      cwd,
      secretEnv: request.secretEnv,
      inputMap,
      ...(request.autoApprove === undefined ? {} : { autoApprove: request.autoApprove }),
    };
    return this.#deps.store.putTrigger(request.name, spec, this.#deps.clock());
  }

  list(): Promise<TriggerRecord[]> {
    return this.#deps.store.listTriggers();
  }

  async remove(name: string): Promise<void> {
    if (!(await this.#deps.store.deleteTrigger(name)))
      throw new WeftError('TRIGGER_NOT_FOUND', `No trigger named '${name}'; list them with 'weft trigger list'.`, {
        data: { trigger: name },
      });
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    const trigger = NAME.test(delivery.name) ? await this.#deps.store.getTrigger(delivery.name) : undefined;
    if (trigger === undefined) return refuse('TRIGGER_NOT_FOUND', `No trigger named '${delivery.name.slice(0, 80)}'.`);
    const secret = this.#deps.env[trigger.spec.secretEnv];
    if (secret === undefined || secret === '')
      return refuse(
        'TRIGGER_SECRET_MISSING',
        `Trigger '${trigger.name}' cannot check signatures: the server's environment variable ${trigger.spec.secretEnv} is not set. Set it and restart weft serve.`,
      );
    const signature = SIGNATURE_HEADERS.map((name) => delivery.header(name)).find((value) => value !== undefined);
    if (signature === undefined)
      return refuse(
        'SIGNATURE_MISSING',
        `Unsigned delivery: send X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body with the trigger's secret>.`,
      );
    if (!signatureMatches(signature, delivery.body, secret))
      return refuse(
        'SIGNATURE_INVALID',
        'The X-Hub-Signature-256 signature does not match the body: check the secret and that the body is sent unchanged.',
      );
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(delivery.body).toString('utf8'));
    } catch (error) {
      return refuse('INVALID_JSON', `The body is not valid JSON (${(error as Error).message}).`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return refuse('INVALID_JSON', 'The body must be a JSON object.');
    const deliveryId = DELIVERY_HEADERS.map((name) => delivery.header(name)).find((value) => value !== undefined);
    if (deliveryId === undefined || !DELIVERY_ID.test(deliveryId))
      return refuse(
        'DELIVERY_ID_MISSING',
        'Send a delivery id (X-GitHub-Delivery or X-Weft-Delivery, 1–200 visible ASCII characters): it keeps a retried delivery from making a second run.',
      );
    const runs = await this.#deps.runs();
    const spec = trigger.spec;
    let inputs: JsonObject;
    try {
      inputs = resolveInputs(await loadWorkflow(resolve(spec.cwd, spec.workflow)), mapInputs(spec.inputMap, body)) as JsonObject;
    } catch (error) {
      if (WeftError.is(error)) return refuse(error.code, `The delivery's inputs do not fit workflow ${spec.workflow}: ${error.message}`);
      throw error;
    }
    const recorded = await this.#deps.store.recordDelivery(trigger.name, deliveryId, newId(), this.#deps.clock());
    // A replay answers the first delivery's run (its id was chosen when the delivery was
    // recorded), even while the first is still making it. Only a sender retrying after the
    // first server died between recording and creating gets the run made now (same id).
    if (
      !recorded.first &&
      (recorded.receivedAt > this.#deps.clock() - ORPHANED_DELIVERY_MS ||
        (await runs.get(recorded.runId).catch(() => undefined)) !== undefined)
    ) {
      return { ok: true, runId: recorded.runId, created: false };
    }
    await runs.create({
      id: recorded.runId,
      workflow: spec.workflow,
      cwd: spec.cwd,
      inputs,
      labels: { [TRIGGER_LABEL]: trigger.name, [DELIVERY_LABEL]: deliveryId.slice(0, 200) },
      ...(spec.autoApprove === undefined ? {} : { autoApprove: spec.autoApprove }),
    });
    return { ok: true, runId: recorded.runId, created: true };
  }
}

function signatureMatches(header: string, body: Uint8Array, secret: string): boolean {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (match === null) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected);
}

/** Each mapped input: `$…` read from the body (absent when the path is), anything else a literal. */
function mapInputs(map: Record<string, string>, body: object): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const [input, path] of Object.entries(map)) {
    const value = path.startsWith('$') ? readJsonPath(body, parseJsonPath(path)) : path;
    if (value !== undefined) inputs[input] = value;
  }
  return inputs;
}
