/**
 * Validation problems, exactly: every kind of mistake with its file, line and message, all
 * reported in one pass.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateWorkflowText } from './validate-workflow.js';

const BROKEN = fileURLToPath(new URL('../../../test/fixtures/workflows/broken/', import.meta.url));

/** `file:line: message` with the file relative to the broken fixtures folder. */
function problemsOf(name: string): string[] {
  const file = join(BROKEN, name);
  const { workflow, problems } = validateWorkflowText(file, readFileSync(file, 'utf8'));
  expect(workflow).toBeUndefined();
  return problems.map((problem) => `${relative(BROKEN, problem.file)}:${problem.line}: ${problem.message}`);
}

function check(text: string): string[] {
  return validateWorkflowText('/virtual/inline.toml', text).problems.map((problem) => `${problem.line}: ${problem.message}`);
}

describe('validateWorkflowText: broken fixtures', () => {
  it('reports unknown kinds, unknown fields, missing required fields and a choice without options', () => {
    expect(problemsOf('nodes.toml')).toEqual([
      "nodes.toml:5: node 'first': unknown kind 'agnet' — did you mean 'agent'? (kinds: agent, prompt, command, tool, human, branch, parallel, join, child, wait)",
      "nodes.toml:9: node 'second' (command): missing required field 'run' — add run = \"<shell script>\"",
      "nodes.toml:11: node 'second' (command): unknown field 'rn' — did you mean 'run'?",
      "nodes.toml:14: node 'third' (tool): missing required field 'tool' — add tool = \"<tool name>\"",
      "nodes.toml:18: node 'fourth': missing 'kind' — add kind = \"…\" (one of agent, prompt, command, tool, human, branch, parallel, join, child, wait)",
      'nodes.toml:25: node \'fifth\' (human): type "choice" needs options — add options = ["…", "…"]',
    ]);
  });

  it('reports edges to missing nodes, bad conditions, bad weights and a second fallback edge', () => {
    expect(problemsOf('edges.toml')).toEqual([
      "edges.toml:6: node 'start' (command): edge to unknown node 'doen' — did you mean 'done'?",
      "edges.toml:11: node 'start' (command): invalid condition 'exit_code ==': Expected expression after == at character 12 — fix the expression; conditions use status, exit_code, output, answer, inputs.<name>, stages.<node>.<field> with == != < <= > >= in && || !",
      "edges.toml:15: node 'start' (command): invalid condition 'output.constructor == 1': 'constructor' is not allowed — fix the expression; conditions use status, exit_code, output, answer, inputs.<name>, stages.<node>.<field> with == != < <= > >= in && || !",
      "edges.toml:19: node 'start' (command): condition 'stages.strat.output == 'x' && inputs.topic': unknown node 'strat' in stages.strat — did you mean 'start'?",
      "edges.toml:19: node 'start' (command): condition 'stages.strat.output == 'x' && inputs.topic': input 'topic' is not declared — declare it in [inputs.topic]",
      "edges.toml:23: node 'start' (command): invalid condition 'len(output) > 0': function calls are not allowed — fix the expression; conditions use status, exit_code, output, answer, inputs.<name>, stages.<node>.<field> with == != < <= > >= in && || !",
      "edges.toml:27: node 'start' (command): 'weight' must be a number, not a string (\"high\") — write e.g. weight = 10",
      "edges.toml:28: node 'start' (command): unknown field 'whenn' — did you mean 'when'?",
      "edges.toml:30: node 'start' (command): more than one edge without 'when' (to 'done' and to 'done') — only the first is ever taken; add a condition or remove one",
    ]);
  });

  it('reports unreachable nodes and nodes with no path to an exit', () => {
    expect(problemsOf('graph.toml')).toEqual([
      "graph.toml:1: node 'begin' has no path to an exit (it only leads to begin, loop_a, loop_b) — add an edge that leaves the cycle, to a node with no outgoing edges",
      "graph.toml:6: node 'loop_a' has no path to an exit (it only leads to begin, loop_a, loop_b) — add an edge that leaves the cycle, to a node with no outgoing edges",
      "graph.toml:11: node 'loop_b' has no path to an exit (it only leads to begin, loop_a, loop_b) — add an edge that leaves the cycle, to a node with no outgoing edges",
      "graph.toml:21: node 'orphan' is unreachable from the start node 'begin' — add an edge to it or remove it",
    ]);
  });

  it('reports a start that is not a node', () => {
    expect(problemsOf('start.toml')).toEqual(["start.toml:2: [workflow]: start 'begn' is not a node — did you mean 'begin'?"]);
  });

  it('reports parallel branch and join mistakes', () => {
    expect(problemsOf('parallel.toml')).toEqual([
      "parallel.toml:3: node 'fan' (parallel): branch 3 'rigth' is not a node — did you mean 'right'?",
      "parallel.toml:3: node 'fan' (parallel): branch 'right' cannot reach the join 'gather' — add an edge from the branch's last node to 'gather'",
      "parallel.toml:5: node 'fan' (parallel): a parallel node has no 'next' — it continues at its join node; put the edges on the join",
      "parallel.toml:24: node 'wrong_fan' (parallel): join 'after' is a command node, not a join node — point join at a node with kind = \"join\"",
      "parallel.toml:35: node 'lonely' is unreachable from the start node 'fan' — add an edge to it or remove it",
      'parallel.toml:36: join node \'lonely\' is not the join of any parallel node — set join = "lonely" on a parallel node or change its kind',
    ]);
  });

  it('reports missing child workflows and prompt files, and agent/prompt nodes without exactly one prompt', () => {
    expect(problemsOf('files.toml')).toEqual([
      "files.toml:3: node 'kid' (child): workflow file 'missing-child.toml' does not exist — fix the path (it is relative to this workflow file)",
      "files.toml:8: node 'self' (child): runs its own workflow as a child — point it at another workflow file",
      "files.toml:13: node 'write' (agent): prompt_file 'missing.md' does not exist — create it or fix the path (it is relative to this workflow file)",
      'files.toml:16: node \'think\' (prompt): needs a prompt — add prompt = "…" or prompt_file = "<file>.md" (relative to this workflow file)',
      "files.toml:24: node 'both' (prompt): has both 'prompt' and 'prompt_file' — keep one of them",
    ]);
  });

  it('reports unknown interpolation roots, undeclared inputs and unknown stages, also inside prompt files', () => {
    expect(problemsOf('templates.toml')).toEqual([
      "templates.toml:6: node 'say' (command): {{ input.topic }}: unknown interpolation root 'input' — did you mean 'inputs'?",
      "templates.toml:6: node 'say' (command): {{ inputs.topc }}: input 'topc' is not declared — did you mean 'topic'?",
      "templates.toml:6: node 'say' (command): {{ stages.nope.output }}: unknown node 'nope' in stages.nope — use the name of a node declared under [nodes]",
      "templates.toml:6: node 'say' (command): {{ stages.say }}: stages.say needs one of the fields output, status, exit_code, answer — write e.g. stages.say.output",
      "templates.toml:6: node 'say' (command): {{ run.user }}: run.user is not available — use run.goal or run.id",
      "templates.toml:6: node 'say' (command): '{{ not a ref }}' is not a reference — write {{ inputs.<name> }}, {{ env.<NAME> }}, {{ stages.<node>.output }} or {{ run.goal }}; write \\{{ for literal braces",
      "templates.toml:12: node 'call' (tool): {{ inputs.missing }}: input 'missing' is not declared — declare it in [inputs.missing]",
      "bad-refs.md:3: node 'write' (agent): {{ inputs.nope }}: input 'nope' is not declared — declare it in [inputs.nope]",
    ]);
  });

  it('reports bad durations, retries, run defaults, inputs and wait nodes', () => {
    expect(problemsOf('values.toml')).toEqual([
      "values.toml:3: [workflow]: unknown field 'strat' — did you mean 'start'?",
      'values.toml:6: [run]: \'auto_approve\' must be true or false, not a string ("yes") — write auto_approve = true or auto_approve = false',
      'values.toml:7: [run] approval[0]: \'action\' must be one of allow, deny, ask, got "permit" — pick one of them',
      "values.toml:8: [run]: unknown field 'lables' — did you mean 'labels'?",
      "values.toml:12: input 'count': 'default' must be of type integer, not a string (\"three\") — change the default or the type",
      'values.toml:17: node \'slow\' (command): \'timeout\' is not a duration: "soon" — write e.g. "500ms", "30s", "2m", "1h" or a number of milliseconds',
      "values.toml:18: node 'slow' (command) retry: 'attempts' must be an integer from 1 to 100, not a number (0) — write e.g. attempts = 3",
      'values.toml:18: node \'slow\' (command) retry: \'backoff\' is not a duration: "later" — write e.g. "500ms", "30s", "2m", "1h" or a number of milliseconds',
      "values.toml:18: node 'slow' (command) retry: 'factor' must be a number ≥ 1, not a number (0.5) — write e.g. factor = 2",
      "values.toml:24: node 'again' (tool) retry: unknown field 'tries' — remove it; retry tables take: attempts, backoff, factor, max_backoff",
      "values.toml:24: node 'again' (tool) retry: missing required field 'attempts' — add attempts = 3",
      "values.toml:30: node 'nap' (wait): has both 'duration' and 'event' — a wait node sleeps or waits for an event, not both",
      'values.toml:33: node \'idle\' (wait): needs duration or event — add duration = "30s" or event = "<name>"',
      "values.toml:35: node 'idle' (wait): 'timeout' only applies to event waits — remove it or wait for an event",
    ]);
  });

  it('reports a TOML syntax error with its line', () => {
    expect(problemsOf('syntax.toml')).toEqual([
      'syntax.toml:3: TOML syntax error at column 12: control characters are not allowed in strings — fix the syntax',
    ]);
  });
});

describe('validateWorkflowText: inline cases', () => {
  it('accepts the valid fixtures', () => {
    const valid = fileURLToPath(new URL('../../../test/fixtures/workflows/valid/', import.meta.url));
    for (const name of ['release-check.toml', 'child.toml', 'minimal.toml']) {
      const file = join(valid, name);
      expect(validateWorkflowText(file, readFileSync(file, 'utf8')).problems, name).toEqual([]);
    }
  });

  it('keeps line numbers right after multi-line strings and arrays that look like keys and tables', () => {
    const text = [
      '[nodes.a]', // 1
      'kind = "command"', // 2
      'run = """', // 3
      '[nodes.fake]', // 4
      'kind = "nope"', // 5
      '"""', // 6
      'env = [', // 7 (not a table: reported here)
      '  "x = 1",', // 8
      '  "[y]",', // 9
      ']', // 10
      'timeout = "never"', // 11
    ].join('\n');
    expect(check(text)).toEqual([
      `7: node 'a' (command): 'env' must be a table, not an array — write env = { … } or a [nodes.a.env] table`,
      `11: node 'a' (command): 'timeout' is not a duration: "never" — write e.g. "500ms", "30s", "2m", "1h" or a number of milliseconds`,
    ]);
  });

  it('finds lines of dotted keys, quoted keys and table-style sub-tables', () => {
    const text = [
      'nodes.a.kind = "command"', // 1
      'nodes.a.run = "true"', // 2
      'nodes.a.next = "b c"', // 3
      '', // 4
      '[nodes."b c"]', // 5
      'kind = "wait"', // 6
      'duration = "1s"', // 7
      '', // 8
      '[nodes."b c".retry]', // 9
      'attempts = 2', // 10
    ].join('\n');
    expect(check(text)).toEqual([
      `5: node name 'b c' is not allowed — use letters, digits, '_' and '-', starting with a letter or '_'`,
      `9: node 'b c' (wait): unknown field 'retry' — remove it; wait nodes take: kind, description, next, edges, duration, event, timeout`,
    ]);
  });

  it('reports a file without nodes and unknown top-level tables', () => {
    expect(check('[node.a]\nkind = "command"\n')).toEqual([
      `1: workflow file: unknown field 'node' — did you mean 'nodes'?`,
      `1: the workflow has no nodes — add at least one [nodes.<name>] table with kind = "…"`,
    ]);
  });

  it('reports branch nodes without edges, options on a yes/no question and bad conditions', () => {
    const text = [
      '[nodes.ask]', // 1
      'kind = "human"', // 2
      'question = "Go?"', // 3
      'type = "yes_no"', // 4
      'options = ["a"]', // 5
      'next = "route"', // 6
      '[nodes.route]', // 7
      'kind = "branch"', // 8
      '[nodes.other]', // 9
      'kind = "branch"', // 10
      '[[nodes.other.edges]]', // 11
      'to = "ask"', // 12
      'when = "answer === true"', // 13
      '[[nodes.other.edges]]', // 14
      'to = "ask"', // 15
      'when = "result == 1"', // 16
      '[[nodes.other.edges]]', // 17
      'to = "ask"', // 18
      'when = 1', // 19
    ].join('\n');
    expect(check(text)).toEqual([
      `5: node 'ask' (human): options are only used by type "choice" and "multi_select" — remove them or change the type`,
      `7: node 'route' (branch): a branch node needs edges — add [[nodes.route.edges]] tables with when = "…"`,
      `9: node 'other' is unreachable from the start node 'ask' — add an edge to it or remove it`,
      `13: node 'other' (branch): invalid condition 'answer === true': use '==' instead of '===' (== is already strict) — fix the expression; conditions use status, exit_code, output, answer, inputs.<name>, stages.<node>.<field> with == != < <= > >= in && || !`,
      `16: node 'other' (branch): invalid condition 'result == 1': unknown name 'result' (names: status, exit_code, output, answer, inputs, stages) — fix the expression; conditions use status, exit_code, output, answer, inputs.<name>, stages.<node>.<field> with == != < <= > >= in && || !`,
      `19: node 'other' (branch): 'when' must be a string, not a number (1) — write when = "…"`,
    ]);
  });

  it('reads an agent node on a CLI (backend = "cli", cli = …) and reports a misspelt backend or CLI, a cli on the weft backend, and tools or max_tokens on a CLI', () => {
    const good = ['[nodes.code]', 'kind = "agent"', 'prompt = "Fix it"', 'backend = "cli"', 'cli = "claude"'].join('\n');
    const { workflow } = validateWorkflowText('/virtual/inline.toml', good);
    expect(workflow?.nodes.code).toMatchObject({ kind: 'agent', backend: 'cli', cli: 'claude' });
    const text = [
      '[nodes.a]', // 1
      'kind = "agent"', // 2
      'prompt = "x"', // 3
      'backend = "clli"', // 4
      'cli = "claud"', // 5
      'next = "b"', // 6
      '[nodes.b]', // 7
      'kind = "agent"', // 8
      'prompt = "y"', // 9
      'backend = "weft"', // 10
      'cli = "codex"', // 11
      'next = "c"', // 12
      '[nodes.c]', // 13
      'kind = "agent"', // 14
      'prompt = "z"', // 15
      'cli = "gemini"', // 16
      'tools = ["shell"]', // 17
      'max_tokens = 100', // 18
    ].join('\n');
    expect(check(text)).toEqual([
      `4: node 'a' (agent): 'backend' must be one of weft, cli, got "clli" — did you mean 'cli'?`,
      `5: node 'a' (agent): 'cli' must be one of claude, codex, gemini, got "claud" — did you mean 'claude'?`,
      `11: node 'b' (agent): 'cli' is only used with backend = "cli" — remove it or set backend = "cli"`,
      `17: node 'c' (agent): 'tools' picks weft's tools; a CLI stage uses the CLI's own — remove it (approval rules allow or deny the CLI's tools)`,
      `18: node 'c' (agent): 'max_tokens' is not passed to a CLI — remove it (max_turns and timeout bound a CLI stage)`,
    ]);
  });

  it('reports inputs that are required and defaulted, bad MCP server tables and a bad retry shorthand', () => {
    const text = [
      '[run.agent.mcps]', // 1
      'everything = "npx server"', // 2
      '[inputs.topic]', // 3
      'required = true', // 4
      'default = "weft"', // 5
      '[nodes.a]', // 6
      'kind = "command"', // 7
      'run = "echo {{ inputs.topic }}"', // 8
      'retry = 0', // 9
    ].join('\n');
    expect(check(text)).toEqual([
      `2: [run] MCP server 'everything' must be a table, not a string ("npx server") — write [run.agent.mcps.everything] with its settings`,
      `5: input 'topic': is required and has a default — remove the default or required = true`,
      `9: node 'a' (command): 'retry' must be a number of attempts from 1 to 100 or a table, not a number (0) — write e.g. retry = 3 or retry = { attempts = 3, backoff = "1s" }`,
    ]);
  });
});

describe('[run.workspace]', () => {
  const flow = (table: string) =>
    `[workflow]\nname = "w"\nstart = "a"\n[run.workspace]\n${table}\n[nodes.a]\nkind = "command"\nrun = "true"\n`;

  it('reads every field into the run defaults', () => {
    const { workflow, problems } = validateWorkflowText(
      '/w.toml',
      flow('mode = "worktree"\nbase = "main"\ninclude_uncommitted = true\nremote = "origin"\nkeep_branch = true'),
    );
    expect(problems).toEqual([]);
    expect(workflow?.run.workspace).toEqual({
      mode: 'worktree',
      base: 'main',
      includeUncommitted: true,
      remote: 'origin',
      keepBranch: true,
    });
  });

  it('names the line, the field and the fix for a bad mode, clone without repo, repo without clone, and run-branch fields in place', () => {
    expect(check(flow('mode = "worktrees"'))).toEqual([
      `5: [run.workspace]: 'mode' must be one of worktree, in-place, clone, got "worktrees" — did you mean 'worktree'?`,
    ]);
    expect(check(flow('mode = "clone"'))).toEqual([
      `4: [run.workspace]: mode = "clone" needs the repository to clone — add repo = "<git URL or path>"`,
    ]);
    expect(check(flow('repo = "https://x/y.git"'))).toEqual([
      `5: [run.workspace]: 'repo' is only for mode = "clone" — set mode = "clone" or remove repo`,
    ]);
    expect(check(flow('mode = "in-place"\nbase = "main"'))).toEqual([
      `6: [run.workspace]: 'base' has no effect with mode = "in-place" (there is no run branch) — remove it or use mode = "worktree"`,
    ]);
  });
});
