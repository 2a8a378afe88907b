import { describe, expect, it } from 'vitest';
import { ApprovalPolicy, type ApprovalSubject } from './approval-policy.js';
import { builtinTools } from './builtin/index.js';

const workflow = { interactive: false, autoApprove: false };
const autoApproved = { interactive: false, autoApprove: true };
const builtins = new Map(builtinTools().map((tool) => [tool.name, tool]));
const builtin = (name: string): ApprovalSubject => builtins.get(name)!;
const mcp = (name: string): ApprovalSubject => ({ name, source: 'mcp' });

describe('ApprovalPolicy', () => {
  it('lets the last matching rule win', () => {
    const policy = new ApprovalPolicy([
      { pattern: '*', action: 'deny' },
      { pattern: 'mcp__github__*', action: 'ask' },
      { pattern: 'mcp__github__get_issue', action: 'allow' },
    ]);
    expect(policy.decide(mcp('mcp__github__get_issue'), workflow)).toEqual({
      action: 'allow',
      rule: { pattern: 'mcp__github__get_issue', action: 'allow' },
    });
    expect(policy.decide(mcp('mcp__github__create_issue'), workflow).action).toBe('ask');
    expect(policy.decide(builtin('shell'), workflow).action).toBe('deny');
  });

  it('does not let an earlier broad allow override a later deny', () => {
    const policy = new ApprovalPolicy([
      { pattern: 'shell', action: 'deny' },
      { pattern: '*', action: 'allow' },
    ]);
    expect(policy.decide(builtin('shell'), workflow).action).toBe('allow');
    const reversed = new ApprovalPolicy([
      { pattern: '*', action: 'allow' },
      { pattern: 'shell', action: 'deny' },
    ]);
    expect(reversed.decide(builtin('shell'), workflow).action).toBe('deny');
    expect(reversed.decide(builtin('read_file'), workflow).action).toBe('allow');
  });

  it('matches globs against the whole qualified name only', () => {
    const policy = new ApprovalPolicy([{ pattern: 'mcp__git*', action: 'deny' }]);
    expect(policy.decide(mcp('mcp__github__x'), autoApproved).action).toBe('deny');
    expect(policy.decide(mcp('mcp__memory__git'), autoApproved).action).toBe('allow');
    expect(policy.decide(builtin('shell'), workflow).rule).toBeUndefined();
  });

  it('defaults: MCP tools and the built-ins that change things ask unless the run is auto-approved; read-only built-ins are allowed', () => {
    const policy = new ApprovalPolicy([]);
    const defaults = (mode: typeof workflow) =>
      Object.fromEntries(
        [...[...builtins.keys()].sort().map(builtin), mcp('mcp__a__b')].map((tool) => [tool.name, policy.decide(tool, mode).action]),
      );
    expect(defaults(workflow)).toEqual({
      edit_file: 'ask',
      glob: 'allow',
      grep: 'allow',
      list_dir: 'allow',
      mcp__a__b: 'ask',
      read_file: 'allow',
      shell: 'ask',
      web_fetch: 'allow',
      write_file: 'ask',
    });
    expect(Object.values(defaults(autoApproved)).every((action) => action === 'allow')).toBe(true);
    const interactive = defaults({ interactive: true, autoApprove: true });
    expect([interactive.shell, interactive.write_file, interactive.edit_file, interactive.mcp__a__b, interactive.read_file]).toEqual([
      'ask',
      'ask',
      'ask',
      'ask',
      'allow',
    ]);
    expect(policy.decide({ name: 'weft_run_get', source: 'weft' }, workflow).action).toBe('allow');
  });

  it('lets a rule allow a built-in that would ask', () => {
    const policy = new ApprovalPolicy([{ pattern: 'write_file', action: 'allow' }]);
    expect(policy.decide(builtin('write_file'), workflow)).toEqual({ action: 'allow', rule: { pattern: 'write_file', action: 'allow' } });
    expect(policy.decide(builtin('shell'), workflow).action).toBe('ask');
  });
});

describe('inside an OS sandbox', () => {
  it("lets the agent's shell run unasked (the boundary replaces the prompt); other tools and explicit rules are unchanged", () => {
    const shell = { name: 'shell', source: 'builtin' as const, annotations: { readOnlyHint: false } };
    const write = { name: 'write_file', source: 'builtin' as const, annotations: { readOnlyHint: false } };
    const sandboxed = { interactive: false, autoApprove: false, sandboxed: true };
    expect(new ApprovalPolicy([]).decide(shell, sandboxed).action).toBe('allow');
    expect(new ApprovalPolicy([]).decide(shell, { interactive: false, autoApprove: false }).action).toBe('ask');
    expect(new ApprovalPolicy([]).decide(write, sandboxed).action).toBe('ask');
    expect(new ApprovalPolicy([{ pattern: 'shell', action: 'deny' }]).decide(shell, sandboxed).action).toBe('deny');
  });
});
