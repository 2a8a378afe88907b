/**
 * Runs a corpus against one MCP target and checks the invariants after every case: the
 * server is alive (a follow-up probe is answered), every request it had to answer was
 * answered, a case with no successful answer left the store exactly as it was, and the
 * server's memory stays under a bound. Counts per case kind go into the report.
 */
import { CorpusBuilder, type Era, type FuzzCase } from './jsonrpc-corpus.js';
import { Rng } from './rng.js';
import type { CaseOutcome, FuzzTarget, RpcMessage } from './stdio-target.js';
import { rssBytes, storeSnapshot } from './store-probe.js';

/** Far above a healthy server (~100–200 MB even while parsing a 10 MB frame); a leak crosses it. */
export const RSS_LIMIT_BYTES = 768 * 1024 * 1024;

export interface Finding {
  target: string;
  index: number;
  kind: string;
  problem: string;
  /** The first bytes of the case's frames, to reproduce it by hand. */
  sample: string;
}

export interface FuzzReport {
  target: string;
  seed: number;
  cases: number;
  byKind: Record<string, { cases: number; answered: number; errors: number }>;
  findings: Finding[];
  maxRssBytes: number;
}

/** Successful answers only: a result that is not a tool error. */
function succeeded(answer: RpcMessage): boolean {
  return answer.result !== undefined && answer.result.isError !== true;
}

function sample(fuzzCase: FuzzCase): string {
  return fuzzCase.frames.map((bytes) => bytes.subarray(0, 160).toString('utf8')).join(' | ');
}

export interface FuzzOptions {
  seed: number;
  era: Era;
  storageDir: string;
  /** Stop after this many cases … */
  cases?: number;
  /** … or at this time (ms since the epoch), whichever comes first. */
  until?: number;
  /** Include the 10 MB frames. */
  big: boolean;
  /** Kinds every run must include at least once, first (the fixed slice's guarantees). */
  always?: readonly string[];
}

export async function fuzzTarget(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const rng = new Rng(options.seed);
  const tools = await target.tools();
  if (tools.length === 0) throw new Error(`${target.name}: tools/list returned no tools (${target.stderr().slice(-500)})`);
  const corpus = new CorpusBuilder(rng, options.era, tools);
  const report: FuzzReport = { target: target.name, seed: options.seed, cases: 0, byKind: {}, findings: [], maxRssBytes: 0 };
  const always = ['warm-up', ...(options.always ?? [])];
  for (let index = 0; ; index++) {
    if (options.cases !== undefined && index >= options.cases) break;
    if (options.until !== undefined && Date.now() >= options.until) break;
    const fuzzCase = always.length > 0 ? corpus.build(always.shift()!) : corpus.next(options.big);
    const before = storeSnapshot(options.storageDir);
    const outcome: CaseOutcome = await target.run(fuzzCase);
    report.cases += 1;
    const tally = (report.byKind[fuzzCase.kind] ??= { cases: 0, answered: 0, errors: 0 });
    tally.cases += 1;
    tally.answered += outcome.answers.length;
    tally.errors += outcome.answers.filter((answer) => !succeeded(answer)).length;
    const rss = rssBytes(target.pid);
    report.maxRssBytes = Math.max(report.maxRssBytes, rss);
    const problems: string[] = [];
    if (!outcome.alive) problems.push(`the server stopped answering (probe unanswered${rss === 0 ? '; the process is gone' : ''})`);
    if (outcome.unanswered.length > 0) problems.push(`no answer for request id(s) ${outcome.unanswered.join(', ')}`);
    if (!outcome.answers.some(succeeded)) {
      const after = storeSnapshot(options.storageDir);
      if (after !== before) problems.push(`a rejected request changed the store: ${before} -> ${after}`);
    }
    if (rss > RSS_LIMIT_BYTES) problems.push(`server RSS ${Math.round(rss / 1048576)} MB over the ${RSS_LIMIT_BYTES / 1048576} MB bound`);
    for (const problem of problems)
      report.findings.push({ target: target.name, index, kind: fuzzCase.kind, problem, sample: sample(fuzzCase) });
    // A dead server would turn every later case into the same finding.
    if (!outcome.alive) break;
  }
  return report;
}
