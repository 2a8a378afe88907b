/**
 * Workflows as code: a definition means what the same tables in a TOML file mean (same
 * nodes, edges and conditions), fails with the same problems, and loads as a module file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { workflowFromDefinition, type WorkflowDefinition } from './definition.js';
import { loadWorkflow } from './load-workflow.js';
import type { Workflow } from './types.js';
import { validateWorkflowText } from './validate-workflow.js';

const REVIEW: WorkflowDefinition = {
  workflow: { name: 'review', description: 'Ask before publishing' },
  run: { labels: { team: 'docs' }, approval: [{ pattern: 'mcp__*', action: 'allow' }] },
  inputs: { version: { default: '1.0.0', type: 'string' } },
  nodes: {
    draft: {
      kind: 'command',
      run: 'echo "notes for {{ inputs.version }}"',
      timeout: '30s',
      retry: { attempts: 2, backoff: '1s' },
      next: 'ask',
    },
    ask: { kind: 'human', question: 'Publish? {{ stages.draft.output }}', type: 'yes_no', next: 'decide' },
    decide: { kind: 'branch', edges: [{ to: 'publish', when: 'answer == true', weight: 2 }, { to: 'shelve' }] },
    publish: { kind: 'command', run: 'echo published' },
    shelve: { kind: 'command', run: 'echo kept' },
  },
};

const REVIEW_TOML = `
[workflow]
name = "review"
description = "Ask before publishing"

[run]
labels = { team = "docs" }
approval = [{ pattern = "mcp__*", action = "allow" }]

[inputs.version]
default = "1.0.0"
type = "string"

[nodes.draft]
kind = "command"
run = 'echo "notes for {{ inputs.version }}"'
timeout = "30s"
retry = { attempts = 2, backoff = "1s" }
next = "ask"

[nodes.ask]
kind = "human"
question = "Publish? {{ stages.draft.output }}"
type = "yes_no"
next = "decide"

[nodes.decide]
kind = "branch"

[[nodes.decide.edges]]
to = "publish"
when = "answer == true"
weight = 2

[[nodes.decide.edges]]
to = "shelve"

[nodes.publish]
kind = "command"
run = "echo published"

[nodes.shelve]
kind = "command"
run = "echo kept"
`;

/** The graph without where each part was written (line numbers differ between the two texts). */
function graph(workflow: Workflow): unknown {
  return JSON.parse(JSON.stringify(workflow, (key, value: unknown) => (key === 'line' || key === 'lines' ? undefined : value)));
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-definition-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('workflow definitions', () => {
  it('mean the same workflow as the equivalent TOML file', () => {
    const file = join(dir, 'review.toml');
    const fromToml = validateWorkflowText(file, REVIEW_TOML).workflow;
    expect(fromToml).toBeDefined();
    expect(graph(workflowFromDefinition(file, REVIEW))).toEqual(graph(fromToml!));
  });

  it('fail with every problem the validator finds, naming the node and how to fix it', () => {
    const broken = {
      workflow: { name: 'broken' },
      nodes: { a: { kind: 'command', run: 'true', next: 'nowhere' }, b: { kind: 'human' } },
    } as unknown as WorkflowDefinition;
    let caught: unknown;
    try {
      workflowFromDefinition(join(dir, 'broken.mjs'), broken);
    } catch (error) {
      caught = error;
    }
    expect(WeftError.is(caught, 'WORKFLOW_INVALID')).toBe(true);
    const message = (caught as WeftError).message;
    expect(message).toContain("edge to unknown node 'nowhere'");
    expect(message).toMatch(/question/);
  });

  it('keep the code of function nodes on the workflow, which a TOML file cannot hold', () => {
    const shout = ({ inputs }: { inputs: Record<string, unknown> }) => String(inputs.who).toUpperCase();
    const workflow = workflowFromDefinition(join(dir, 'code.mjs'), {
      workflow: { name: 'code' },
      nodes: { shout: { kind: 'function', run: shout, timeout: '5s' } },
    });
    expect(workflow.nodes.shout).toMatchObject({ kind: 'function', run: shout, timeoutMs: 5000 });
    const fromToml = validateWorkflowText(join(dir, 'code.toml'), '[workflow]\nname = "code"\n[nodes.shout]\nkind = "function"\n');
    expect(fromToml.problems.map((problem) => problem.message)).toEqual([
      expect.stringContaining('function nodes hold code, which only a workflow module can'),
    ]);
  });

  it('load from a module file whose default export is a definition, and refuse a module without one', async () => {
    const module = join(dir, 'review.mjs');
    await writeFile(module, `export default ${JSON.stringify(REVIEW)};\n`);
    const loaded = await loadWorkflow(module);
    expect(loaded.file).toBe(module);
    expect(Object.keys(loaded.nodes)).toEqual(['draft', 'ask', 'decide', 'publish', 'shelve']);
    expect(loaded.nodes.decide?.edges.map((edge) => edge.to)).toEqual(['publish', 'shelve']);

    const empty = join(dir, 'empty.mjs');
    await writeFile(empty, 'export const nothing = 1;\n');
    await expect(loadWorkflow(empty)).rejects.toThrow(/must export default a workflow definition/);
    await expect(loadWorkflow(join(dir, 'missing.mjs'))).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});
