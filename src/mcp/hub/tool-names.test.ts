/** Unit tests of qualified tool names, collisions and tool filters. */
import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_NAME_LENGTH,
  describeTool,
  filterTools,
  nameServerTools,
  qualifiedToolName,
  sanitizeNamePart,
  toolPatternMayName,
} from './tool-names.js';

describe('qualifiedToolName', () => {
  it('joins server and tool as mcp__<server>__<tool>', () => {
    expect(qualifiedToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(qualifiedToolName('my-server', 'get-sum')).toBe('mcp__my-server__get-sum');
  });

  it('replaces characters outside [A-Za-z0-9_-] with _', () => {
    expect(sanitizeNamePart('a.b/c d:é')).toBe('a_b_c_d__');
    expect(qualifiedToolName('fs', 'read.file')).toBe('mcp__fs__read_file');
  });

  it('shortens names over 64 characters to a prefix plus a stable hash', () => {
    const tool = 'x'.repeat(70);
    const name = qualifiedToolName('server', tool);
    expect(name.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(name).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(qualifiedToolName('server', tool)).toBe(name);
  });

  it('keeps long names that differ only at the end distinct', () => {
    const a = qualifiedToolName('server', `${'y'.repeat(70)}a`);
    const b = qualifiedToolName('server', `${'y'.repeat(70)}b`);
    expect(a).not.toBe(b);
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
  });

  it('leaves a name of exactly 64 characters alone', () => {
    const tool = 'z'.repeat(MAX_TOOL_NAME_LENGTH - 'mcp__s__'.length);
    expect(qualifiedToolName('s', tool)).toBe(`mcp__s__${tool}`);
  });
});

describe('nameServerTools', () => {
  it('keeps the first of two tools that collide after sanitising and reports the second', () => {
    const naming = nameServerTools('fx', [{ name: 'get.value' }, { name: 'echo' }, { name: 'get/value' }]);
    expect(naming.named.map((entry) => [entry.qualifiedName, entry.originalName])).toEqual([
      ['mcp__fx__get_value', 'get.value'],
      ['mcp__fx__echo', 'echo'],
    ]);
    expect(naming.dropped).toEqual([
      { originalName: 'get/value', reason: expect.stringContaining("'get/value' and 'get.value' both become 'mcp__fx__get_value'") },
    ]);
  });
});

describe('filterTools', () => {
  const tools = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];

  it('keeps everything without lists', () => {
    expect(filterTools(tools, { disabledTools: [] }).map((tool) => tool.name)).toEqual(['a', 'b', 'c']);
  });

  it('applies the allow-list first, then the deny-list', () => {
    expect(filterTools(tools, { enabledTools: ['a', 'b'], disabledTools: ['b'] }).map((tool) => tool.name)).toEqual(['a']);
    expect(filterTools(tools, { disabledTools: ['c'] }).map((tool) => tool.name)).toEqual(['a', 'b']);
    expect(filterTools(tools, { enabledTools: [], disabledTools: [] }).map((tool) => tool.name)).toEqual([]);
  });
});

describe('describeTool', () => {
  it('prefixes the description with the server name', () => {
    expect(describeTool('fs', ' Reads a file ')).toBe('[fs] Reads a file');
    expect(describeTool('fs', undefined)).toBe('[fs]');
  });
});

describe('toolPatternMayName', () => {
  it('tells which servers a tool stage or an agent tools entry can need, before they list their tools', () => {
    const servers = ['github', 'git', 'my.docs', 'x'.repeat(60)];
    const needs = (pattern: string) => servers.filter((server) => toolPatternMayName(pattern, server));
    expect(needs('mcp__github__create_issue')).toEqual(['github', 'x'.repeat(60)]);
    expect(needs('mcp__git__*')).toEqual(['git', 'x'.repeat(60)]);
    expect(needs('mcp__git*')).toEqual(['github', 'git', 'x'.repeat(60)]);
    expect(needs('mcp__my_docs__{search,fetch}')).toEqual(['my.docs', 'x'.repeat(60)]);
    expect(needs('*')).toEqual(servers);
    // Built-ins need no server; a very long server name is always counted (its prefix may be cut).
    expect(needs('read_file')).toEqual(['x'.repeat(60)]);
  });
});
