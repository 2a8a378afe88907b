/**
 * A seeded mutator over workflow files, for the parser's fuzz tests: each case takes a real
 * workflow and changes a few lines (a value of the wrong type, a key or table that should
 * not be there, a deleted or doubled line), so every field reader meets values it did not
 * expect. The same seed gives the same cases, so a failure names the seed that reproduces it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../core/seeded-random.js';

export interface WorkflowSample {
  file: string;
  text: string;
}

export interface MutatedWorkflow extends WorkflowSample {
  /** What was changed, for the failure message. */
  mutations: string[];
}

/** Values of every TOML type, and strings that look like syntax weft reads inside values. */
const VALUES = [
  '{ x = 1 }',
  '{}',
  '[]',
  '[1, "a"]',
  '[[1]]',
  '[{ a = 1 }]',
  '{ kind = "command", run = "true" }',
  '1',
  '-1',
  '0',
  '1.5',
  '9007199254740993',
  'nan',
  'inf',
  '-inf',
  'true',
  'false',
  '""',
  '"  "',
  '"x"',
  '"1979-05-27"',
  '1979-05-27T07:32:00Z',
  '1979-05-27',
  '07:32:00',
  '"{{"',
  '"}}"',
  '"{{ inputs.__proto__ }}"',
  '"{{ stages.nope.output }}"',
  '"{{ env. }}"',
  '"__proto__"',
  '"constructor"',
  '"toString"',
  '"a.b"',
  '"exit_code =="',
  '"status == \'ok\' &&"',
  '"10q"',
  '"-5s"',
  '["x", 1]',
  '[true]',
  `"${'x'.repeat(5000)}"`,
];

const KEYS = [
  'kind',
  'run',
  'next',
  'edges',
  'when',
  'to',
  'weight',
  'prompt',
  'prompt_file',
  'system',
  'model',
  'tools',
  'retry',
  'max_attempts',
  'backoff',
  'timeout',
  'branches',
  'join',
  'workflow',
  'inputs',
  'env',
  'args',
  'tool',
  'type',
  'options',
  'question',
  'duration',
  'event',
  'approval',
  'labels',
  'agent',
  'mcps',
  'start',
  'name',
  'default',
  'required',
  'goal',
  'auto_approve',
  'cwd',
  '__proto__',
  'constructor',
  'toString',
  '"a b"',
  'max_turns',
  'max_tokens',
];

const TABLES = [
  '[nodes.extra]',
  '[nodes.constructor]',
  '[nodes.__proto__]',
  '[nodes."a b"]',
  '[[nodes.extra.edges]]',
  '[inputs.__proto__]',
  '[inputs.extra]',
  '[run.agent.mcps.extra]',
  '[run.agent]',
  '[workflow]',
  '[run]',
  '[nodes]',
  '[[nodes]]',
  '[[run.approval]]',
  '[inputs]',
  '[extra]',
];

const ASSIGNMENT = /^(\s*[A-Za-z0-9_."' -]+?\s*=\s*)(.*)$/;

/** Every `.toml` file under the folders, recursively, sorted so the corpus is stable. */
export function readWorkflowSamples(folders: readonly string[]): WorkflowSample[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.toml')) files.push(path);
    }
  };
  folders.forEach(walk);
  return files.sort().map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

type Mutation = (lines: string[], pick: <T>(items: readonly T[]) => T, index: number) => string;

const occurrences = (text: string, chars: RegExp): number => text.match(chars)?.length ?? 0;

/** Lines that assign a whole value on one line (multi-line strings, arrays and tables are left alone). */
function assignmentLines(lines: readonly string[]): number[] {
  return lines.flatMap((line, index) => {
    const value = ASSIGNMENT.exec(line)?.[2];
    if (value === undefined || line.trimStart().startsWith('[') || /^\s*("""|''')/.test(value)) return [];
    return occurrences(value, /[[{]/g) === occurrences(value, /[\]}]/g) ? [index] : [];
  });
}

const MUTATIONS: Mutation[] = [
  (lines, pick) => {
    const candidates = assignmentLines(lines);
    if (candidates.length === 0) return 'nothing to replace';
    const index = pick(candidates);
    const value = pick(VALUES);
    lines[index] = lines[index]!.replace(ASSIGNMENT, (_, key: string) => `${key}${value}`);
    return `line ${index + 1}: value → ${value.slice(0, 40)}`;
  },
  (lines, pick, index) => {
    const line = `${pick(KEYS)} = ${pick(VALUES)}`;
    lines.splice(index, 0, line);
    return `line ${index + 1}: insert ${line.slice(0, 60)}`;
  },
  (lines, pick, index) => {
    const header = pick(TABLES);
    lines.splice(index, 0, header, `${pick(KEYS)} = ${pick(VALUES)}`);
    return `line ${index + 1}: insert table ${header}`;
  },
  (lines, _pick, index) => {
    lines.splice(index, 1);
    return `line ${index + 1}: delete`;
  },
  (lines, _pick, index) => {
    lines.splice(index, 0, lines[index] ?? '');
    return `line ${index + 1}: double`;
  },
  (lines, pick, index) => {
    const other = Math.floor(pick([0.1, 0.3, 0.5, 0.7, 0.9]) * lines.length);
    [lines[index], lines[other]] = [lines[other] ?? '', lines[index] ?? ''];
    return `lines ${index + 1} and ${other + 1}: swap`;
  },
];

/** `count` mutated workflows, one to three mutations each, from `seed`. */
export function mutateWorkflows(samples: readonly WorkflowSample[], seed: number, count: number): MutatedWorkflow[] {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const cases: MutatedWorkflow[] = [];
  for (let n = 0; n < count; n += 1) {
    const sample = pick(samples);
    const lines = sample.text.split('\n');
    const mutations: string[] = [];
    const rounds = 1 + Math.floor(random() * 3);
    for (let round = 0; round < rounds; round += 1) {
      // Value replacements find the most: half of all mutations are one.
      const mutation = random() < 0.5 ? MUTATIONS[0]! : pick(MUTATIONS);
      mutations.push(mutation(lines, pick, Math.floor(random() * lines.length)));
    }
    cases.push({ file: sample.file, text: lines.join('\n'), mutations });
  }
  return cases;
}
