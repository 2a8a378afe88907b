/**
 * Loading: a valid file becomes a typed `Workflow` (defaults applied, paths resolved,
 * prompt files read); a broken one throws one WORKFLOW_INVALID error listing every problem.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { loadWorkflow } from './load-workflow.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/workflows/', import.meta.url));

async function rejection(file: string): Promise<WeftError> {
  const error: unknown = await loadWorkflow(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof WeftError)) throw new Error(`expected a WeftError, got ${String(error)}`);
  return error;
}

describe('loadWorkflow', () => {
  it('loads the workflow header, run defaults and inputs', async () => {
    const workflow = await loadWorkflow(`${FIXTURES}valid/release-check.toml`);
    expect(workflow.name).toBe('release-check');
    expect(workflow.description).toBe('Check the release notes and ask before shipping');
    expect(workflow.file).toBe(`${FIXTURES}valid/release-check.toml`);
    expect(workflow.dir).toBe(`${FIXTURES}valid`);
    expect(workflow.start).toBe('fetch');
    expect(workflow.run).toEqual({
      goal: 'Check the release',
      labels: { team: 'docs' },
      autoApprove: false,
      model: 'anthropic:claude-sonnet',
      approval: [{ pattern: 'mcp__*', action: 'allow' }],
      agent: {
        weft_tools: ['read_file', 'grep'],
        max_turns: 20,
        mcps: { everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } },
      },
      mcpServers: {
        file: `${FIXTURES}valid/release-check.toml`,
        servers: { everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } },
        lines: { everything: 18 },
      },
    });
    expect(workflow.inputs).toEqual({
      topic: { name: 'topic', description: 'What to check', required: false, default: 'weft', line: 22 },
      version: { name: 'version', description: 'Version to ship', required: true, type: 'string', line: 26 },
    });
    expect(Object.keys(workflow.nodes)).toEqual([
      'fetch',
      'check',
      'route',
      'fan',
      'write',
      'summarize',
      'gather',
      'ask',
      'kid',
      'pause',
      'done',
    ]);
  });

  it('types every node kind', async () => {
    const { nodes } = await loadWorkflow(`${FIXTURES}valid/release-check.toml`);
    expect(nodes.fetch).toEqual({
      kind: 'tool',
      name: 'fetch',
      line: 31,
      edges: [{ to: 'check', weight: 0, line: 35 }],
      tool: 'mcp__everything__echo',
      args: { message: 'Checking {{ inputs.topic }} {{ inputs.version }}', count: 3 },
    });
    expect(nodes.check).toMatchObject({
      kind: 'command',
      run: "test -f notes.md && grep -q '{{ inputs.version }}' notes.md",
      timeoutMs: 30_000,
      retry: { attempts: 3, backoffMs: 1000, factor: 2, maxBackoffMs: 30_000 },
      edges: [
        { to: 'fan', weight: 10, line: 43, when: { source: 'exit_code == 0' } },
        { to: 'route', weight: 0, line: 48 },
      ],
    });
    expect(nodes.route).toMatchObject({ kind: 'branch', description: 'Retry the fan-out for known topics' });
    expect(nodes.fan).toEqual({ kind: 'parallel', name: 'fan', line: 62, edges: [], branches: ['write', 'summarize'], join: 'gather' });
    expect(nodes.write).toEqual({
      kind: 'agent',
      name: 'write',
      line: 67,
      edges: [{ to: 'gather', weight: 0, line: 72 }],
      prompt: 'Write the release notes for {{ inputs.topic }} {{ inputs.version }}.\nKeep them short.\n',
      promptFile: `${FIXTURES}valid/write.md`,
      maxTurns: 10,
      tools: ['read_file', 'edit_file'],
    });
    expect(nodes.summarize).toMatchObject({
      kind: 'prompt',
      prompt: 'Summarize the release notes for {{ inputs.topic }}:\n{{ stages.fetch.output }}\n',
    });
    expect(nodes.gather).toEqual({ kind: 'join', name: 'gather', line: 82, edges: [{ to: 'ask', weight: 0, line: 84 }] });
    expect(nodes.ask).toMatchObject({
      kind: 'human',
      question: 'Ship {{ inputs.topic }} {{ inputs.version }}?',
      type: 'choice',
      options: ['ship', 'hold'],
      timeoutMs: 3_600_000,
    });
    expect(nodes.kid).toMatchObject({ kind: 'child', workflow: `${FIXTURES}valid/child.toml`, inputs: { topic: '{{ inputs.topic }}' } });
    expect(nodes.pause).toMatchObject({ kind: 'wait', durationMs: 2000 });
    expect(nodes.done).toMatchObject({ kind: 'command', run: 'echo done: {{ stages.kid.status }}', edges: [] });
  });

  it('defaults the name to the file name and start to the first node', async () => {
    const minimal = await loadWorkflow(`${FIXTURES}valid/minimal.toml`);
    expect(minimal).toMatchObject({ name: 'minimal', start: 'only', run: { labels: {}, approval: [], agent: {} }, inputs: {} });
    const child = await loadWorkflow(`${FIXTURES}valid/child.toml`);
    expect(child).toMatchObject({ name: 'child', start: 'signal' });
    expect(child.nodes.signal).toMatchObject({ kind: 'wait', event: 'release-approved', timeoutMs: 600_000 });
  });

  it('throws WORKFLOW_INVALID listing every problem, one per line, with data.problems', async () => {
    const file = `${FIXTURES}broken/nodes.toml`;
    const error = await rejection(file);
    expect(error.code).toBe('WORKFLOW_INVALID');
    expect(error.message.split('\n')).toEqual([
      `${file}:5: node 'first': unknown kind 'agnet' — did you mean 'agent'? (kinds: agent, prompt, command, tool, human, branch, parallel, join, child, wait)`,
      `${file}:9: node 'second' (command): missing required field 'run' — add run = "<shell script>"`,
      `${file}:11: node 'second' (command): unknown field 'rn' — did you mean 'run'?`,
      `${file}:14: node 'third' (tool): missing required field 'tool' — add tool = "<tool name>"`,
      `${file}:18: node 'fourth': missing 'kind' — add kind = "…" (one of agent, prompt, command, tool, human, branch, parallel, join, child, wait)`,
      `${file}:25: node 'fifth' (human): type "choice" needs options — add options = ["…", "…"]`,
    ]);
    expect(error.data.file).toBe(file);
    expect(error.data.problems).toHaveLength(6);
    expect((error.data.problems as unknown[])[1]).toEqual({
      file,
      line: 9,
      message: `node 'second' (command): missing required field 'run' — add run = "<shell script>"`,
    });
  });

  it('names problems with the path as given, and prompt-file problems with the prompt file', async () => {
    const error = await rejection(`${FIXTURES}broken/templates.toml`);
    expect(error.message.split('\n').at(-1)).toBe(
      `${FIXTURES}broken/bad-refs.md:3: node 'write' (agent): {{ inputs.nope }}: input 'nope' is not declared — declare it in [inputs.nope]`,
    );
  });

  it('throws FILE_NOT_FOUND for a missing file', async () => {
    const error = await rejection(`${FIXTURES}valid/nope.toml`);
    expect(error.code).toBe('FILE_NOT_FOUND');
    expect(error.message).toBe(`Workflow file '${FIXTURES}valid/nope.toml' does not exist — check the path.`);
  });
});
