/**
 * `[run.concurrency]`: one table or several, templates limited to what a run has when it is
 * created, every mistake named with its line; rendering per run, with duplicates merged and
 * empty keys refused.
 */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { resolveConcurrency } from './concurrency-keys.js';
import { validateWorkflowText } from './validate-workflow.js';

const NODES = '\n[nodes.go]\nkind = "command"\nrun = "true"\n';
const INPUTS = '[inputs.repo]\ntype = "string"\n\n';

function parse(run: string) {
  return validateWorkflowText('/virtual/keys.toml', `${INPUTS}${run}${NODES}`);
}

describe('[run.concurrency]', () => {
  it('reads one table (limit 1 by default) or several', () => {
    expect(parse('[run.concurrency]\nkey = "repo:{{ inputs.repo }}"\n').workflow?.run.concurrency).toEqual([
      { key: 'repo:{{ inputs.repo }}', limit: 1 },
    ]);
    const several = parse('[[run.concurrency]]\nkey = "{{ inputs.repo }}"\nlimit = 2\n\n[[run.concurrency]]\nkey = "deploys"\nlimit = 1\n');
    expect(several.problems).toEqual([]);
    expect(several.workflow?.run.concurrency).toEqual([
      { key: '{{ inputs.repo }}', limit: 2 },
      { key: 'deploys', limit: 1 },
    ]);
  });

  it('names each mistake with its line', () => {
    const problems = (run: string) => parse(run).problems.map((problem) => `${problem.line}: ${problem.message}`);
    expect(problems('[run.concurrency]\nlimit = 0\nkey = "{{ stages.go.output }}"\nkeys = 1\n')).toEqual([
      "5: [run.concurrency]: 'limit' must be an integer ≥ 1, not a number (0) — write e.g. limit = 10",
      "6: [run.concurrency]: '{{ stages.go.output }}' cannot be known when a run is created — a key may use {{ inputs.<declared input> }} and {{ run.goal }}",
      "7: [run.concurrency]: unknown field 'keys' — did you mean 'key'?",
    ]);
    expect(problems('[run.concurrency]\nkey = "{{ inputs.rep }}"\n')).toEqual([
      "5: [run.concurrency]: '{{ inputs.rep }}' cannot be known when a run is created — a key may use {{ inputs.<declared input> }} and {{ run.goal }}",
    ]);
    expect(problems('[run.concurrency]\nlimit = 1\n')).toEqual([
      '4: [run.concurrency]: missing required field \'key\' — add key = "{{ inputs.repo }}"',
    ]);
  });

  it('renders keys per run, merges duplicates to the smallest limit, refuses an empty key', () => {
    const specs = [
      { key: 'repo:{{ inputs.repo }}', limit: 3 },
      { key: 'repo:{{ inputs.repo }}', limit: 1 },
      { key: 'goal:{{ run.goal }}', limit: 2 },
    ];
    expect(resolveConcurrency(specs, { repo: 'acme/api' }, 'ship it')).toEqual([
      { key: 'repo:acme/api', limit: 1 },
      { key: 'goal:ship it', limit: 2 },
    ]);
    expect(resolveConcurrency(undefined, {}, '')).toBeUndefined();
    const empty = (() => {
      try {
        resolveConcurrency([{ key: '{{ inputs.repo }}', limit: 1 }], {}, '');
      } catch (error) {
        return error;
      }
    })();
    expect(WeftError.is(empty, 'RUN_INVALID_PARAMS') && empty.message).toMatch(/renders empty/);
  });
});
