/**
 * Fuzzes the workflow parser and validator with mutated copies of every example and fixture
 * workflow: each case must end valid or with `file:line` problems, never an exception.
 * The explored cases come from WEFT_FUZZ_SEED when set (to rerun a failing run), else a
 * random seed locally and a fixed one in CI (`CI` set), so a CI result is reproducible.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderGraph } from './render-graph.js';
import { validateWorkflowText, type WorkflowValidation } from './validate-workflow.js';
import { mutateWorkflows, readWorkflowSamples, type MutatedWorkflow } from './workflow-mutator.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SAMPLES = readWorkflowSamples([`${ROOT}examples`, `${ROOT}test/fixtures/workflows`, `${ROOT}test/fixtures/workflows-e2e`]);
const FIXED_SEED = 20261125;
/** The explored seed in CI when WEFT_FUZZ_SEED does not name one. */
const CI_SEED = 20261128;
const EXPLORE_SEED = Number(process.env.WEFT_FUZZ_SEED) || (process.env.CI ? CI_SEED : Math.floor(Math.random() * 2 ** 31));

/** What is wrong with a result: problems without a place or a readable message. */
function resultFailure(result: WorkflowValidation): string | undefined {
  if (result.workflow) {
    if (result.problems.length > 0) return 'a workflow and problems at once';
    // `weft workflow graph` draws what validated; it must not trip over odd values either.
    renderGraph(result.workflow, 'mermaid');
    renderGraph(result.workflow, 'dot');
    return undefined;
  }
  if (result.problems.length === 0) return 'no workflow and no problem';
  const unclear = result.problems.find(
    (problem) =>
      problem.file === '' ||
      !Number.isInteger(problem.line) ||
      problem.line < 1 ||
      problem.message.trim() === '' ||
      /\[object |undefined|NaN|null/.test(problem.message),
  );
  return unclear === undefined ? undefined : `unclear problem ${JSON.stringify(unclear)}`;
}

/** What went wrong with one case, or undefined when it ended valid or with clear problems. */
function failureOf(sample: MutatedWorkflow): string | undefined {
  try {
    return resultFailure(validateWorkflowText(sample.file, sample.text));
  } catch (error) {
    return `threw ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 3).join(' | ') : String(error)}`;
  }
}

function fuzz(seed: number, count: number): string[] {
  return mutateWorkflows(SAMPLES, seed, count).flatMap((sample, index) => {
    const failure = failureOf(sample);
    return failure === undefined ? [] : [`seed ${seed} case ${index} (${sample.file}; ${sample.mutations.join('; ')}): ${failure}`];
  });
}

describe('workflow parser fuzzing', () => {
  it('reads the examples and fixtures as its corpus', () => {
    expect(SAMPLES.length).toBeGreaterThanOrEqual(15);
  });

  it('ends every mutated workflow of the fixed seed valid or with file:line problems', () => {
    expect(fuzz(FIXED_SEED, 300)).toEqual([]);
  });

  it(`ends every mutated workflow of an explored seed (${EXPLORE_SEED}) valid or with file:line problems`, () => {
    expect(fuzz(EXPLORE_SEED, 200)).toEqual([]);
  });

  it('names nan and infinity as TOML writes them', () => {
    const text = '[nodes.a]\nkind = "command"\nrun = -inf\ntimeout = nan\n';
    expect(validateWorkflowText('/virtual/numbers.toml', text).problems.map((problem) => `${problem.line}: ${problem.message}`)).toEqual([
      "3: node 'a' (command): 'run' must be a string, not a number (-inf) — write run = \"…\"",
      '4: node \'a\' (command): \'timeout\' is not a duration: a number (nan) — write e.g. "500ms", "30s", "2m", "1h" or a number of milliseconds',
    ]);
  });

  it('reports a node kind written as an inline table at its line', () => {
    const text = '[nodes.a]\nkind = { x = 1 }\n';
    expect(validateWorkflowText('/virtual/kind.toml', text).problems).toEqual([
      {
        file: '/virtual/kind.toml',
        line: 2,
        message:
          "node 'a': 'kind' must be a string, not a table — write kind = \"…\" (one of agent, prompt, command, tool, human, branch, parallel, join, child, wait)",
      },
    ]);
  });
});
