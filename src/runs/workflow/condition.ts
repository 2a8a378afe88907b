/**
 * Edge conditions: parsed by jsep, then converted into a small AST of our own that admits
 * only literals, references (identifier/member paths over the context), arrays, `!`, unary
 * `-`, comparisons, `in`, `&&` and `||`. Anything else — calls, `this`, ternaries,
 * arithmetic, computed access with a non-literal key, `__proto__`/`constructor`/`prototype`
 * — is refused at compile time, so evaluation never touches anything but own data.
 *
 * Note: registers `in` as a binary operator on the (global) jsep instance.
 */
import jsep from 'jsep';
import { WeftError } from '../../core/errors.js';
import { suggestion } from '../../core/config-text/did-you-mean.js';
import { FORBIDDEN_KEYS, lookupPath } from './lookup.js';
import type { WorkflowContext } from './types.js';

jsep.addBinaryOp('in', 7);

export type PathSegment = string | number;

export const COMPARISON_OPERATORS = ['==', '!=', '<', '<=', '>', '>=', 'in'] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export type ConditionAst =
  | { type: 'literal'; value: string | number | boolean | null }
  | { type: 'reference'; path: readonly PathSegment[] }
  | { type: 'array'; elements: readonly ConditionAst[] }
  | { type: 'not'; argument: ConditionAst }
  | { type: 'negate'; argument: ConditionAst }
  | { type: 'compare'; operator: ComparisonOperator; left: ConditionAst; right: ConditionAst }
  | { type: 'logical'; operator: '&&' | '||'; left: ConditionAst; right: ConditionAst };

export interface CompiledCondition {
  source: string;
  ast: ConditionAst;
  /** Every reference path in the expression (root first), for validation. */
  references: readonly (readonly PathSegment[])[];
}

export type CompileResult = { ok: true; condition: CompiledCondition } | { ok: false; message: string };

/** Names a condition may start with. */
export const CONDITION_ROOTS = ['status', 'exit_code', 'output', 'answer', 'inputs', 'stages'] as const;
const OPERATORS_HINT = 'conditions use == != < <= > >= in && || ! and parentheses';

class Refusal extends Error {}

function toPath(node: jsep.Expression): PathSegment[] {
  if (node.type === 'Identifier') {
    const name = (node as jsep.Identifier).name;
    if (FORBIDDEN_KEYS.has(name)) throw new Refusal(`'${name}' is not allowed`);
    if (!(CONDITION_ROOTS as readonly string[]).includes(name)) {
      throw new Refusal(`unknown name '${name}'${suggestion(name, CONDITION_ROOTS, '')} (names: ${CONDITION_ROOTS.join(', ')})`);
    }
    return [name];
  }
  if (node.type === 'MemberExpression') {
    const member = node as jsep.MemberExpression;
    const path = toPath(member.object);
    let key: PathSegment;
    if (!member.computed && member.property.type === 'Identifier') key = (member.property as jsep.Identifier).name;
    else if (
      member.computed &&
      member.property.type === 'Literal' &&
      ['string', 'number'].includes(typeof (member.property as jsep.Literal).value)
    ) {
      key = (member.property as jsep.Literal).value as PathSegment;
    } else throw new Refusal('computed member access needs a literal key, e.g. output["key"] or output.items[0]');
    if (typeof key === 'string' && FORBIDDEN_KEYS.has(key)) throw new Refusal(`'${key}' is not allowed`);
    return [...path, key];
  }
  if (node.type === 'CallExpression') throw new Refusal('function calls are not allowed');
  throw new Refusal(`${node.type} is not allowed`);
}

function convert(node: jsep.Expression, references: PathSegment[][]): ConditionAst {
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      if (value instanceof RegExp) throw new Refusal('regular expressions are not allowed');
      return { type: 'literal', value };
    }
    case 'Identifier':
    case 'MemberExpression': {
      const path = toPath(node);
      references.push(path);
      return { type: 'reference', path };
    }
    case 'ArrayExpression':
      return {
        type: 'array',
        elements: (node as jsep.ArrayExpression).elements.map((element) => {
          if (element === null) throw new Refusal('array holes are not allowed');
          return convert(element, references);
        }),
      };
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      if (unary.operator === '!') return { type: 'not', argument: convert(unary.argument, references) };
      if (unary.operator === '-') return { type: 'negate', argument: convert(unary.argument, references) };
      throw new Refusal(`operator '${unary.operator}' is not allowed; ${OPERATORS_HINT}`);
    }
    case 'BinaryExpression': {
      const binary = node as jsep.BinaryExpression;
      const left = convert(binary.left, references);
      const right = convert(binary.right, references);
      if (binary.operator === '&&' || binary.operator === '||') return { type: 'logical', operator: binary.operator, left, right };
      if ((COMPARISON_OPERATORS as readonly string[]).includes(binary.operator)) {
        return { type: 'compare', operator: binary.operator as ComparisonOperator, left, right };
      }
      if (binary.operator === '===' || binary.operator === '!==')
        throw new Refusal(`use '${binary.operator.slice(0, 2)}' instead of '${binary.operator}' (== is already strict)`);
      throw new Refusal(`operator '${binary.operator}' is not allowed; ${OPERATORS_HINT}`);
    }
    case 'CallExpression':
      throw new Refusal('function calls are not allowed');
    case 'Compound':
      throw new Refusal(
        (node as jsep.Compound).body.length === 0 ? 'the condition is empty' : 'write one expression (join parts with && or ||)',
      );
    case 'ConditionalExpression':
      throw new Refusal('the ?: operator is not allowed; use separate edges');
    default:
      throw new Refusal(`${node.type} is not allowed; ${OPERATORS_HINT}`);
  }
}

/** Parses and checks a condition; never throws. */
export function compileCondition(source: string): CompileResult {
  let parsed: jsep.Expression;
  try {
    parsed = jsep(source);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  try {
    const references: PathSegment[][] = [];
    const ast = convert(parsed, references);
    return { ok: true, condition: { source, ast, references } };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, message: error.message };
    throw error;
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  const left = a === undefined ? null : a;
  const right = b === undefined ? null : b;
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every(
    (key) => Object.hasOwn(right, key) && deepEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
  );
}

function compare(operator: ComparisonOperator, left: unknown, right: unknown): boolean {
  switch (operator) {
    case '==':
      return deepEqual(left, right);
    case '!=':
      return !deepEqual(left, right);
    case 'in':
      if (Array.isArray(right)) return right.some((item) => deepEqual(left, item));
      return typeof right === 'string' && typeof left === 'string' && right.includes(left);
    default: {
      const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
      if (!comparable) return false;
      const [l, r] = [left, right] as [number, number];
      if (operator === '<') return l < r;
      if (operator === '<=') return l <= r;
      if (operator === '>') return l > r;
      return l >= r;
    }
  }
}

function evaluate(ast: ConditionAst, context: WorkflowContext): unknown {
  switch (ast.type) {
    case 'literal':
      return ast.value;
    case 'reference':
      return lookupPath(ast.path, context);
    case 'array':
      return ast.elements.map((element) => evaluate(element, context));
    case 'not':
      return !evaluate(ast.argument, context);
    case 'negate': {
      const value = evaluate(ast.argument, context);
      return typeof value === 'number' ? -value : null;
    }
    case 'logical':
      return ast.operator === '&&'
        ? Boolean(evaluate(ast.left, context)) && Boolean(evaluate(ast.right, context))
        : Boolean(evaluate(ast.left, context)) || Boolean(evaluate(ast.right, context));
    case 'compare':
      return compare(ast.operator, evaluate(ast.left, context), evaluate(ast.right, context));
    default: {
      const unreachable: never = ast;
      throw new WeftError('INTERNAL', `Unknown condition node ${JSON.stringify(unreachable)}.`);
    }
  }
}

/** True when the condition holds (JavaScript truthiness of the result). */
export function evaluateCondition(compiled: CompiledCondition, context: WorkflowContext): boolean {
  return Boolean(evaluate(compiled.ast, context));
}
