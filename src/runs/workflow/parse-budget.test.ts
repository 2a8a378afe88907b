/**
 * `[nodes.<name>.budget]` is checked like `[run.budget]`: each bad value is reported at its
 * own line with the fix, a table with no limit is refused, and only nodes that call a model
 * (agent, prompt) take one.
 */
import { describe, expect, it } from 'vitest';
import { validateWorkflowText } from './validate-workflow.js';

const check = (text: string) => validateWorkflowText('/virtual/inline.toml', text);
const problems = (text: string) => check(text).problems.map((problem) => `${problem.line}: ${problem.message}`);

describe('a stage budget', () => {
  it('is read from [nodes.<name>.budget] or an inline budget table', () => {
    const { workflow, problems: found } = check(`[workflow]
name = "b"
[nodes.write]
kind = "agent"
prompt = "Go."
next = "sum"
budget = { max_tokens = 5000, max_duration = "2m" }
[nodes.sum]
kind = "prompt"
prompt = "Sum up."
[nodes.sum.budget]
max_cost_usd = 0.25
on_exceeded = "fail"
`);
    expect(found).toEqual([]);
    expect(workflow?.nodes.write).toMatchObject({ budget: { maxTokens: 5000, maxDurationMs: 120_000, onExceeded: 'pause' } });
    expect(workflow?.nodes.sum).toMatchObject({ budget: { maxCostUsd: 0.25, onExceeded: 'fail' } });
  });

  it('names the line, the field and the fix for every bad value', () => {
    expect(
      problems(`[workflow]
name = "b"

[nodes.write]
kind = "agent"
prompt = "Go."
next = "check"

[nodes.write.budget]
max_cost_usd = -1
max_tokens = 1.5
max_duration = "soon"
on_exceeded = "stop"
max_cots = 3

[nodes.check]
kind = "command"
run = "true"
next = "ask"
budget = { max_tokens = 10 }

[nodes.ask]
kind = "prompt"
prompt = "Hi"
budget = { on_exceeded = "fail" }
`),
    ).toEqual([
      "10: [nodes.write.budget]: 'max_cost_usd' must be a number ≥ 0, not a number (-1) — write e.g. max_cost_usd = 1",
      "11: [nodes.write.budget]: 'max_tokens' must be an integer ≥ 1, not a number (1.5) — write e.g. max_tokens = 10",
      `12: [nodes.write.budget]: 'max_duration' is not a duration: "soon" — write e.g. "500ms", "30s", "2m", "1h" or a number of milliseconds`,
      `13: [nodes.write.budget]: 'on_exceeded' must be one of pause, fail, got "stop" — pick one of them`,
      "14: [nodes.write.budget]: unknown field 'max_cots' — remove it; [nodes.write.budget] tables take: max_cost_usd, max_tokens, max_duration, on_exceeded",
      "20: node 'check' (command): unknown field 'budget' — remove it; command nodes take: kind, description, next, edges, run, cwd, env, timeout, retry",
      `25: node 'ask' (prompt): [nodes.ask.budget] sets no limit — write max_cost_usd = 5, max_tokens = 2000000 or max_duration = "2h"`,
    ]);
  });
});
