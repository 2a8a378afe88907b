/**
 * Conditions: what compiles, what is refused (calls, prototype access, unknown names,
 * non-whitelisted operators), and how the whitelisted operators evaluate.
 */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { compileCondition, evaluateCondition, type CompiledCondition } from './condition.js';
import type { WorkflowContext } from './types.js';

function compiled(source: string): CompiledCondition {
  const result = compileCondition(source);
  if (!result.ok) throw new Error(`expected '${source}' to compile: ${result.message}`);
  return result.condition;
}

function refusal(source: string): string {
  const result = compileCondition(source);
  if (result.ok) throw new Error(`expected '${source}' to be refused`);
  return result.message;
}

const context: WorkflowContext = {
  inputs: { topic: 'weft', count: 3, tags: ['a', 'b'] },
  stages: {
    fetch: { status: 'succeeded', output: { items: [{ name: 'x' }], ok: true }, exit_code: null },
    build: { status: 'failed', output: '{"ok": false, "errors": 2}', exit_code: 2 },
  },
  last: { status: 'succeeded', exit_code: 0, output: 'all good', answer: 'ship' },
};

const holds = (source: string, ctx: WorkflowContext = context): boolean => evaluateCondition(compiled(source), ctx);

describe('compileCondition', () => {
  it('compiles into our own AST and lists the references', () => {
    const condition = compiled('exit_code == 0 && stages.fetch.output.items[0].name in ["x", "y"]');
    expect(condition.references).toEqual([['exit_code'], ['stages', 'fetch', 'output', 'items', 0, 'name']]);
    expect(condition.ast).toEqual({
      type: 'logical',
      operator: '&&',
      left: { type: 'compare', operator: '==', left: { type: 'reference', path: ['exit_code'] }, right: { type: 'literal', value: 0 } },
      right: {
        type: 'compare',
        operator: 'in',
        left: { type: 'reference', path: ['stages', 'fetch', 'output', 'items', 0, 'name'] },
        right: {
          type: 'array',
          elements: [
            { type: 'literal', value: 'x' },
            { type: 'literal', value: 'y' },
          ],
        },
      },
    });
  });

  it('passes on the jsep syntax error', () => {
    expect(refusal('exit_code ==')).toBe('Expected expression after == at character 12');
    expect(refusal('(status == "ok"')).toMatch(/^Unclosed \( at character 15/);
  });

  it('refuses calls, prototype access and anything outside the whitelist', () => {
    expect(refusal('output.toString()')).toBe('function calls are not allowed');
    expect(refusal('output.constructor')).toBe(`'constructor' is not allowed`);
    expect(refusal('output.__proto__.polluted == 1')).toBe(`'__proto__' is not allowed`);
    expect(refusal('output["constructor"]')).toBe(`'constructor' is not allowed`);
    expect(refusal('inputs.prototype')).toBe(`'prototype' is not allowed`);
    expect(refusal('constructor')).toBe(`'constructor' is not allowed`);
    expect(refusal('output[status]')).toBe('computed member access needs a literal key, e.g. output["key"] or output.items[0]');
    expect(refusal('this.status')).toBe('ThisExpression is not allowed');
    expect(refusal('exit_code + 1 == 2')).toBe(`operator '+' is not allowed; conditions use == != < <= > >= in && || ! and parentheses`);
    expect(refusal('~exit_code')).toBe(`operator '~' is not allowed; conditions use == != < <= > >= in && || ! and parentheses`);
    expect(refusal('status ? 1 : 2')).toBe('the ?: operator is not allowed; use separate edges');
    expect(refusal('status status')).toBe('write one expression (join parts with && or ||)');
    expect(refusal('')).toBe('the condition is empty');
    expect(refusal('staus == "ok"')).toBe(
      `unknown name 'staus' — did you mean 'status'? (names: status, exit_code, output, answer, inputs, stages)`,
    );
    expect(refusal('process.exit(1)')).toBe('function calls are not allowed');
    expect(refusal('process.exitCode == 1')).toBe(`unknown name 'process' (names: status, exit_code, output, answer, inputs, stages)`);
  });
});

describe('evaluateCondition', () => {
  it('compares the last stage outcome', () => {
    expect(holds('exit_code == 0')).toBe(true);
    expect(holds('exit_code != 0')).toBe(false);
    expect(holds('status == "succeeded" && answer == "ship"')).toBe(true);
    expect(holds("status == 'failed' || output == 'all good'")).toBe(true);
    expect(holds('!(exit_code == 0)')).toBe(false);
    expect(holds('exit_code == "0"')).toBe(false);
  });

  it('orders numbers and strings, and is false for mixed types', () => {
    expect(holds('inputs.count >= 3 && inputs.count < 4 && inputs.count > 2 && inputs.count <= 3')).toBe(true);
    expect(holds('inputs.topic > "abc"')).toBe(true);
    expect(holds('inputs.count > "2"')).toBe(false);
    expect(holds('stages.build.exit_code > -1')).toBe(true);
  });

  it('tests membership with in, for arrays and substrings', () => {
    expect(holds('status in ["succeeded", "skipped"]')).toBe(true);
    expect(holds('"c" in inputs.tags')).toBe(false);
    expect(holds('"b" in inputs.tags')).toBe(true);
    expect(holds('"good" in output')).toBe(true);
    expect(holds('3 in output')).toBe(false);
  });

  it('reads object fields, array items and JSON printed by a command', () => {
    expect(holds('stages.fetch.output.ok')).toBe(true);
    expect(holds('stages.fetch.output.items[0].name == "x"')).toBe(true);
    expect(holds('stages.build.output.ok == false && stages.build.output.errors == 2')).toBe(true);
    expect(holds('stages.fetch.exit_code == null')).toBe(true);
    expect(holds('stages["fetch-docs"].status == "succeeded"', { inputs: {}, stages: { 'fetch-docs': { status: 'succeeded' } } })).toBe(
      true,
    );
  });

  it('treats missing values as null', () => {
    expect(holds('stages.later.output == null')).toBe(true);
    expect(holds('stages.fetch.output.missing.deeper == null')).toBe(true);
    expect(holds('answer == "ship"', { inputs: {}, stages: {} })).toBe(false);
    expect(holds('output.length == 8')).toBe(false);
  });

  it('never reads inherited properties', () => {
    const polluted: WorkflowContext = { inputs: Object.create({ inherited: 'yes' }) as Record<string, unknown>, stages: {} };
    expect(holds('inputs.inherited == "yes"', polluted)).toBe(false);
    expect(holds('inputs.toString == null', polluted)).toBe(true);
  });

  it('refuses a hand-built AST that reaches for the prototype', () => {
    const forged: CompiledCondition = { source: 'forged', ast: { type: 'reference', path: ['output', 'constructor'] }, references: [] };
    expect(() => evaluateCondition(forged, context)).toThrow(WeftError);
    const forgedRoot: CompiledCondition = { source: 'forged', ast: { type: 'reference', path: ['__proto__'] }, references: [] };
    expect(() => evaluateCondition(forgedRoot, context)).toThrow(`Access to '__proto__' is not allowed in workflow expressions.`);
  });
});
