/**
 * The writes that carry plans of the shared planner, each one statement so it commits
 * atomically without an explicit transaction. APPEND_BATCH updates many runs' rows, each
 * only if its head is still the one planned on (and, fenced, the lease still the
 * runner's), then inserts the events and questions of exactly the runs it updated; CREATE
 * inserts a new run with its first events.
 */
import type { AppendPlan } from '../../model/plan-append.js';

const EVENTS_OF = (source: string) =>
  `INSERT INTO events (run_id, seq, at, type, stage_id, payload) SELECT ${source}.id, e.seq, e.at, e.type, e.stage_id, e.payload FROM ${source}, unnest($11::int[], $12::bigint[], $13::text[], $14::text[], $15::text[]) AS e(seq, at, type, stage_id, payload)`;
const QUESTIONS_OF = (source: string) =>
  `INSERT INTO questions (id, run_id, status, asked_at, record) SELECT q.id, ${source}.id, q.status, q.asked_at, q.record FROM ${source}, unnest($16::text[], $17::text[], $18::bigint[], $19::text[]) AS q(id, status, asked_at, record) ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record`;
/** $1 id, $2 workflow, $3 created, $4 labels, $5 spec, $6 status, $7 archived, $8 parent, $9 updated, $10 state, $11–$19 events and questions, $20 head seq. */
export const CREATE = `WITH r AS (
  INSERT INTO runs (id, workflow, created_at, labels, spec, status, archived, parent_id, updated_at, state, head_seq)
  VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $20) RETURNING id
), e AS (${EVENTS_OF('r')}), q AS (${QUESTIONS_OF('r')}) SELECT count(*)::int AS n FROM r`;

/**
 * Runs ($1–$10: id, head planned on, new status, archived, parent, updated, state, head
 * seq, whether the lease ends, fencing runner or null), events ($11–$16, by run id) and
 * questions ($17–$21), each as column arrays; returns the ids of the runs it wrote.
 */
export const APPEND_BATCH = `WITH p AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::smallint[], $5::text[], $6::bigint[], $7::text[], $8::int[], $9::boolean[], $10::text[])
    AS p(id, head, status, archived, parent_id, updated_at, state, head_seq, ends_lease, fence)
), r AS (
  UPDATE runs SET status = p.status, archived = p.archived, parent_id = p.parent_id, updated_at = p.updated_at, state = p.state, head_seq = p.head_seq,
    lease_owner = CASE WHEN p.ends_lease THEN NULL ELSE runs.lease_owner END, lease_expires_at = CASE WHEN p.ends_lease THEN 0 ELSE runs.lease_expires_at END
  FROM p WHERE runs.id = p.id AND runs.head_seq = p.head
    AND (p.fence IS NULL OR runs.lease_owner = p.fence OR (runs.lease_owner IS NULL AND runs.status NOT IN ('succeeded', 'failed', 'cancelled'))) RETURNING runs.id
), e AS (
  INSERT INTO events (run_id, seq, at, type, stage_id, payload)
  SELECT e.run_id, e.seq, e.at, e.type, e.stage_id, e.payload FROM unnest($11::text[], $12::int[], $13::bigint[], $14::text[], $15::text[], $16::text[]) AS e(run_id, seq, at, type, stage_id, payload)
  WHERE e.run_id IN (SELECT id FROM r)
), q AS (
  INSERT INTO questions (id, run_id, status, asked_at, record)
  SELECT q.id, q.run_id, q.status, q.asked_at, q.record FROM unnest($17::text[], $18::text[], $19::text[], $20::bigint[], $21::text[]) AS q(id, run_id, status, asked_at, record)
  WHERE q.run_id IN (SELECT id FROM r) ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record
) SELECT id FROM r`;

/** Parameters $11–$19 of CREATE: the events and questions as column arrays. */
export function writeParams(plan: AppendPlan): unknown[] {
  const { events, payloadTexts, questions } = plan;
  return [
    events.map((event) => event.seq),
    events.map((event) => event.at),
    events.map((event) => event.type),
    events.map((event) => event.stageId ?? null),
    events.map((event, index) => payloadTexts[index] ?? JSON.stringify(event.payload)),
    questions.map((question) => question.id),
    questions.map((question) => question.status),
    questions.map((question) => question.askedAt),
    questions.map((question) => JSON.stringify(question)),
  ];
}

/** Many runs at once (imports): three statements over column arrays, in one transaction. */
export const BULK_RUNS = `INSERT INTO runs (id, workflow, created_at, labels, spec, status, archived, parent_id, updated_at, state, head_seq)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::jsonb[], $5::text[], $6::text[], $7::smallint[], $8::text[], $9::bigint[], $10::text[], $11::int[])`;
export const BULK_EVENTS = `INSERT INTO events (run_id, seq, at, type, stage_id, payload) SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[], $5::text[], $6::text[])`;
export const BULK_QUESTIONS = `INSERT INTO questions (id, run_id, status, asked_at, record) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[])`;

/** The parameters of BULK_RUNS, BULK_EVENTS and BULK_QUESTIONS for planned new runs. */
export function bulkParams(plans: readonly { id: string; plan: AppendPlan }[]): {
  runs: unknown[][];
  events: unknown[][];
  questions: unknown[][];
} {
  const runs: unknown[][] = Array.from({ length: 11 }, () => []);
  const events: unknown[][] = Array.from({ length: 6 }, () => []);
  const questions: unknown[][] = Array.from({ length: 5 }, () => []);
  const push = (columns: unknown[][], values: unknown[]) => values.forEach((value, index) => columns[index]?.push(value));
  for (const { id, plan } of plans) {
    const { spec, state } = plan;
    push(runs, [
      id,
      spec?.workflow,
      spec?.createdAt,
      JSON.stringify(spec?.labels ?? {}),
      JSON.stringify(spec),
      state.status,
      state.archived ? 1 : 0,
      state.parentId ?? null,
      state.updatedAt,
      JSON.stringify(state),
      state.counts.events,
    ]);
    plan.events.forEach((event, index) =>
      push(events, [id, event.seq, event.at, event.type, event.stageId ?? null, plan.payloadTexts[index] ?? JSON.stringify(event.payload)]),
    );
    for (const question of plan.questions) push(questions, [question.id, id, question.status, question.askedAt, JSON.stringify(question)]);
  }
  return { runs, events, questions };
}
