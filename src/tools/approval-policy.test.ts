import { describe, expect, it } from 'vitest';
import { ApprovalPolicy } from './approval-policy.js';

const workflow = { interactive: false, autoApprove: false };

describe('ApprovalPolicy', () => {
  it('lets the last matching rule win', () => {
    const policy = new ApprovalPolicy([
      { pattern: '*', action: 'deny' },
      { pattern: 'mcp__github__*', action: 'ask' },
      { pattern: 'mcp__github__get_issue', action: 'allow' },
    ]);
    expect(policy.decide('mcp__github__get_issue', 'mcp', workflow)).toEqual({ action: 'allow', rule: { pattern: 'mcp__github__get_issue', action: 'allow' } });
    expect(policy.decide('mcp__github__create_issue', 'mcp', workflow).action).toBe('ask');
    expect(policy.decide('shell', 'builtin', workflow).action).toBe('deny');
  });

  it('does not let an earlier broad allow override a later deny', () => {
    const policy = new ApprovalPolicy([
      { pattern: 'shell', action: 'deny' },
      { pattern: '*', action: 'allow' },
    ]);
    expect(policy.decide('shell', 'builtin', workflow).action).toBe('allow');
    const reversed = new ApprovalPolicy([
      { pattern: '*', action: 'allow' },
      { pattern: 'shell', action: 'deny' },
    ]);
    expect(reversed.decide('shell', 'builtin', workflow).action).toBe('deny');
    expect(reversed.decide('read_file', 'builtin', workflow).action).toBe('allow');
  });

  it('matches globs against the whole qualified name only', () => {
    const policy = new ApprovalPolicy([{ pattern: 'mcp__git*', action: 'deny' }]);
    expect(policy.decide('mcp__github__x', 'mcp', { interactive: false, autoApprove: true }).action).toBe('deny');
    expect(policy.decide('mcp__memory__git', 'mcp', { interactive: false, autoApprove: true }).action).toBe('allow');
    expect(policy.decide('shell', 'builtin', workflow).rule).toBeUndefined();
  });

  it('defaults: built-ins allowed, MCP tools asked interactively and follow auto_approve in workflows', () => {
    const policy = new ApprovalPolicy([]);
    expect(policy.decide('shell', 'builtin', workflow).action).toBe('allow');
    expect(policy.decide('mcp__a__b', 'mcp', { interactive: true, autoApprove: true }).action).toBe('ask');
    expect(policy.decide('mcp__a__b', 'mcp', { interactive: false, autoApprove: true }).action).toBe('allow');
    expect(policy.decide('mcp__a__b', 'mcp', { interactive: false, autoApprove: false }).action).toBe('ask');
  });
});
