import { describe, expect, it } from 'vitest';
import { textResult, type Tool } from '../tools/tool.js';
import { providerToolName } from './tool-names.js';
import { adaptSchema, adaptTools } from './tool-schemas.js';

function tool(name: string, inputSchema: Record<string, unknown>): Tool {
  return { name, description: name, inputSchema, source: 'builtin', execute: async () => textResult('ok') };
}

describe('adaptSchema', () => {
  it('inlines $defs and cuts recursion with a loose schema of the same type', () => {
    const schema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      $defs: {
        node: {
          type: 'object',
          description: 'A node.',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        },
      },
    };
    expect(adaptSchema(schema, 'anthropic')).toEqual({
      type: 'object',
      properties: {
        root: {
          type: 'object',
          description: 'A node.',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { type: 'object', description: 'A node. (same shape as node, nested)' } },
          },
        },
      },
    });
  });

  it('turns alternatives at the root into one object, keeping only what every alternative requires', () => {
    const schema = {
      description: 'Find a thing.',
      oneOf: [
        { type: 'object', properties: { id: { type: 'string' }, verbose: { type: 'boolean' } }, required: ['id', 'verbose'] },
        { type: 'object', properties: { query: { type: 'string' }, verbose: { type: 'boolean' } }, required: ['query', 'verbose'] },
      ],
    };
    expect(adaptSchema(schema, 'openai')).toEqual({
      type: 'object',
      description: 'Find a thing. Accepts one of 2 argument shapes: {id, verbose} or {query, verbose}.',
      properties: { id: { type: 'string' }, verbose: { type: 'boolean' }, query: { type: 'string' } },
      required: ['verbose'],
    });
  });

  it('drops a root-level anyOf that only constrains which properties are required', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    };
    expect(adaptSchema(schema, 'anthropic')).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } });
  });

  it('gives Gemini its subset: anyOf for oneOf, nullable types, string enums, merged allOf, no unsupported keywords', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: {
        choice: { oneOf: [{ type: 'string' }, { type: 'integer', minimum: 1 }] },
        maybe: { anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }], description: 'Optional.' },
        level: { type: 'integer', enum: [1, 2, 3] },
        when: { type: 'string', format: 'date-time', pattern: '^2' },
        both: {
          allOf: [{ type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }, { properties: { y: { type: 'number' } } }],
        },
        loose: {},
        never: false,
        list: { type: 'array', prefixItems: [{ type: 'string' }] },
      },
      required: ['choice', 'never'],
    };
    expect(adaptSchema(schema, 'gemini')).toEqual({
      type: 'object',
      properties: {
        choice: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        maybe: { type: ['string', 'null'], description: 'Optional.' },
        level: { type: 'integer', description: 'One of: 1, 2, 3.' },
        when: { type: 'string', format: 'date-time' },
        both: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] },
        loose: { type: 'string', description: '(any JSON value)' },
        list: { type: 'array', items: { type: 'string' } },
      },
      required: ['choice'],
    });
  });

  it('refuses what cannot be adapted: remote refs, missing refs, a root that is not an object', () => {
    expect(() => adaptSchema({ type: 'object', properties: { a: { $ref: 'https://x.test/a.json' } } }, 'openai')).toThrow(
      "the reference 'https://x.test/a.json' points outside the schema",
    );
    expect(() => adaptSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, 'openai')).toThrow(
      "the reference '#/$defs/missing' points to nothing",
    );
    expect(() => adaptSchema({ type: 'string' }, 'anthropic')).toThrow(`its input schema's root must be an object, not "string"`);
    expect(() => adaptSchema({ oneOf: [{ type: 'string' }, { type: 'object' }] }, 'anthropic')).toThrow(
      'its top-level oneOf has alternatives that are not objects',
    );
  });
});

describe('adaptTools', () => {
  it('drops only the tool whose schema cannot be adapted, with a warning, and maps names back', () => {
    const tools = [
      tool('read.file', { type: 'object', properties: {} }),
      tool('broken', { type: 'string' }),
      tool('read_file', { type: 'object', properties: {} }),
    ];
    const adapted = adaptTools(tools, 'openai');
    expect(adapted.specs.map((spec) => spec.name)).toEqual(['read_file', expect.stringMatching(/^read_file_[0-9a-f]{8}$/)]);
    expect(adapted.warnings).toEqual([
      `Tool 'broken' is not offered to the model: its input schema's root must be an object, not "string".`,
    ]);
    expect(adapted.specs.map((spec) => adapted.toolFor(spec.name)?.name)).toEqual(['read.file', 'read_file']);
  });
});

describe('providerToolName', () => {
  it('keeps safe names, replaces unsafe characters, shortens long names stably and starts Gemini names with a letter', () => {
    const long = `mcp__server__${'x'.repeat(80)}`;
    expect(providerToolName('mcp__github__create_issue', 'anthropic', new Set())).toBe('mcp__github__create_issue');
    expect(providerToolName('files.read/all', 'openai', new Set())).toBe('files_read_all');
    expect(providerToolName(long, 'openai', new Set())).toHaveLength(64);
    expect(providerToolName(long, 'openai', new Set())).toBe(providerToolName(long, 'anthropic', new Set()));
    expect(providerToolName('1password', 'gemini', new Set())).toBe('_1password');
    expect(providerToolName('1password', 'openai', new Set())).toBe('1password');
  });
});
