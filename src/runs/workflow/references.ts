/**
 * Checks one reference path from a template or a condition against what the workflow
 * declares: known roots, declared inputs, existing nodes, and the fields a stage has.
 */
import { CONDITION_ROOTS } from './condition.js';
import { suggestion } from '../../core/config-text/did-you-mean.js';
import { FORBIDDEN_KEYS } from './lookup.js';
import { TEMPLATE_ROOTS } from './template.js';

export interface ReferenceScope {
  inputs: ReadonlySet<string>;
  nodes: ReadonlySet<string>;
}

const STAGE_FIELDS = ['output', 'status', 'exit_code', 'answer'] as const;
const RUN_FIELDS = ['goal', 'id'] as const;
/** Fields whose values may have fields of their own. */
const NESTED = new Set(['output', 'answer']);

function checkStage(path: readonly (string | number)[], scope: ReferenceScope): string | undefined {
  const [, node, field] = path;
  if (node === undefined) return `'stages' needs a node name — write stages.<node>.output`;
  if (!scope.nodes.has(String(node)))
    return `unknown node '${node}' in stages.${node}${suggestion(String(node), scope.nodes, ' — use the name of a node declared under [nodes]')}`;
  if (field === undefined || !(STAGE_FIELDS as readonly string[]).includes(String(field))) {
    const got = field === undefined ? '' : ` (got '${field}')`;
    return `stages.${node} needs one of the fields ${STAGE_FIELDS.join(', ')}${got} — write e.g. stages.${node}.output`;
  }
  if (path.length > 3 && !NESTED.has(String(field))) return `stages.${node}.${field} has no fields — remove '.${path.slice(3).join('.')}'`;
  return undefined;
}

/**
 * Returns a problem message (with ` — how to fix`) or undefined. `kind` decides the roots:
 * templates see inputs/env/stages/run, conditions see the last stage's outcome plus
 * inputs/stages.
 */
export function checkReference(
  path: readonly (string | number)[],
  scope: ReferenceScope,
  kind: 'template' | 'condition',
): string | undefined {
  const forbidden = path.find((segment) => typeof segment === 'string' && FORBIDDEN_KEYS.has(segment));
  if (forbidden !== undefined) return `'${forbidden}' may not be referenced — remove it`;
  const root = String(path[0]);
  const roots: readonly string[] = kind === 'template' ? TEMPLATE_ROOTS : CONDITION_ROOTS;
  if (!roots.includes(root)) {
    return `unknown ${kind === 'template' ? 'interpolation' : 'condition'} root '${root}'${suggestion(root, roots, ` — use one of ${roots.join(', ')}`)}`;
  }
  const name = path[1] === undefined ? undefined : String(path[1]);
  switch (root) {
    case 'inputs':
      if (name === undefined) return `'inputs' needs an input name — write inputs.<name>`;
      if (!scope.inputs.has(name))
        return `input '${name}' is not declared${suggestion(name, scope.inputs, ` — declare it in [inputs.${name}]`)}`;
      return undefined;
    case 'stages':
      return checkStage(path, scope);
    case 'env':
      if (name === undefined) return `'env' needs a variable name — write env.NAME`;
      return path.length > 2 ? `env.${name} has no fields — remove '.${path.slice(2).join('.')}'` : undefined;
    case 'run':
      if (name === undefined || !(RUN_FIELDS as readonly string[]).includes(name) || path.length > 2) {
        return `run.${path.slice(1).join('.')} is not available${suggestion(name ?? '', RUN_FIELDS, ' — use run.goal or run.id')}`;
      }
      return undefined;
    case 'status':
    case 'exit_code':
      return path.length > 1 ? `${root} has no fields — remove '.${path.slice(1).join('.')}'` : undefined;
    default:
      return undefined;
  }
}
