/**
 * `weft workflow validate | graph` and `weft init` (scaffolds settings and a workflow).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { WeftError } from '../../../core/errors.js';
import { globalOptions, printJson, withApp } from '../command-context.js';
import type { StageModelCheck } from '../../../app/services/model-check.js';
import { EXIT_USAGE } from '../exit-codes.js';

/** The workflow loader (TOML parser, expression parser) loads only for the commands that read a workflow. */
const workflows = () => import('../../../runs/workflow/index.js');
const graphs = () => import('../../../runs/workflow/render-graph.js');

interface WorkflowValidation {
  file: string;
  valid: boolean;
  workflow: string | null;
  nodes: number;
  start: string | null;
  problems: { file: string; line: number; message: string }[];
  /** With `--check-models`: one check per agent and prompt stage. */
  models?: StageModelCheck[];
}

/** An invalid workflow is a result here, not an error: `--json` prints its problems as data. */
async function validationResult(
  load: () => Promise<{ file: string; name: string; nodes: object; start: string }>,
  file: string,
): Promise<WorkflowValidation> {
  try {
    const loaded = await load();
    return {
      file: loaded.file,
      valid: true,
      workflow: loaded.name,
      nodes: Object.keys(loaded.nodes).length,
      start: loaded.start,
      problems: [],
    };
  } catch (error) {
    if (!WeftError.is(error, 'WORKFLOW_INVALID')) throw error;
    const problems = (error.data.problems ?? []) as WorkflowValidation['problems'];
    return { file, valid: false, workflow: null, nodes: 0, start: null, problems };
  }
}

function describeLoaded(loaded: { file: string; name: string; nodes: object; start: string }): string {
  return `${loaded.file}: ok — workflow '${loaded.name}', ${Object.keys(loaded.nodes).length} nodes, starts at '${loaded.start}'`;
}

function printValidation(result: WorkflowValidation): void {
  printJson(result);
  if (!result.valid) process.exitCode = EXIT_USAGE;
}

const SETTINGS_TEMPLATE = `# weft project settings — see README "Settings".
[tools]
shell_timeout = "120s"

# Rules are ordered; the last matching one wins (allow | deny | ask).
[[approval.rules]]
pattern = "mcp__*"
action = "ask"
`;

const WORKFLOW_TEMPLATE = `# A first workflow: run it with  weft run hello.toml
[workflow]
name = "hello"
description = "Say hello, ask whether to write a file, and write it."

[inputs.name]
description = "Who to greet"
default = "world"

[nodes.greet]
kind = "command"
run = "echo 'hello {{ inputs.name }}'"
next = "ask"

[nodes.ask]
kind = "human"
question = "Write the greeting to hello.txt?"
type = "yes_no"
next = "route"

[nodes.route]
kind = "branch"
[[nodes.route.edges]]
to = "write"
when = "stages.ask.answer == true"
[[nodes.route.edges]]
to = "skip"

[nodes.write]
kind = "tool"
tool = "write_file"
args = { file_path = "hello.txt", content = "{{ stages.greet.output }}" }

[nodes.skip]
kind = "command"
run = "echo 'nothing written'"
`;

export function registerWorkflowCommands(program: Command): void {
  const workflow = program.command('workflow').description('check and draw workflow files');
  workflow
    .command('validate')
    .description('check a workflow file; every problem is listed with file and line (exit 2 when there are any)')
    .argument('<file>')
    .option('--json', 'print {file, valid, problems, …} (see docs/cli-json.md); exit 2 when invalid')
    .option(
      '--check-models',
      'also check that every agent and prompt stage has a usable model: one named, a known provider, its key variable set (exit 2 when not)',
    )
    .option('--model <model>', 'with --check-models: the model `weft run --model` would give the run')
    .action(async (file: string, options: { json?: boolean; checkModels?: boolean; model?: string }, command: Command) => {
      const { loadWorkflow } = await workflows();
      const path = resolve(globalOptions(command).cwd ?? process.cwd(), file);
      if (!options.checkModels) {
        if (options.json) return printValidation(await validationResult(() => loadWorkflow(path), path));
        const loaded = await loadWorkflow(path);
        return void process.stdout.write(`${describeLoaded(loaded)}\n`);
      }
      await withApp(command, async (app) => {
        const { checkWorkflowModels } = await import('../../../app/services/model-check.js');
        if (options.json) {
          const result = await validationResult(() => loadWorkflow(path), path);
          const models = result.valid ? checkWorkflowModels(await loadWorkflow(path), app.settings.llm, process.env, options.model) : [];
          printValidation({ ...result, models });
          if (models.some((check) => !check.ok)) process.exitCode = EXIT_USAGE;
          return;
        }
        const loaded = await loadWorkflow(path);
        const models = checkWorkflowModels(loaded, app.settings.llm, process.env, options.model);
        process.stdout.write(`${describeLoaded(loaded)}\n`);
        if (models.length === 0) process.stdout.write('  no agent or prompt stages: no model needed\n');
        for (const check of models) {
          const key = check.keyEnv === null ? '' : ` (key from ${check.keyEnv})`;
          process.stdout.write(
            check.ok
              ? `  ✓ ${check.node} (${check.kind}): ${check.model}${key}\n`
              : `  ✗ ${check.node} (${check.kind}): ${check.problem}\n`,
          );
        }
        if (models.some((check) => !check.ok)) process.exitCode = EXIT_USAGE;
      });
    });
  workflow
    .command('graph')
    .description('draw a workflow as Mermaid (default), DOT or SVG')
    .argument('<file>')
    .option('--format <format>', 'mermaid, dot or svg', 'mermaid')
    .action(async (file: string, options: { format: string }, command: Command) => {
      const [{ loadWorkflow }, { renderGraph, parseGraphFormat }] = await Promise.all([workflows(), graphs()]);
      const format = parseGraphFormat(options.format, '--format');
      const loaded = await loadWorkflow(resolve(globalOptions(command).cwd ?? process.cwd(), file));
      process.stdout.write(`${renderGraph(loaded, format)}\n`);
    });

  program
    .command('init')
    .description('create .weft/settings.toml and an example workflow (hello.toml) here; existing files are kept')
    .action(async (_options: unknown, command: Command) => {
      const root = resolve(globalOptions(command).cwd ?? process.cwd());
      const created: string[] = [];
      for (const [path, text] of [
        [join(root, '.weft', 'settings.toml'), SETTINGS_TEMPLATE],
        [join(root, 'hello.toml'), WORKFLOW_TEMPLATE],
      ] as const) {
        if (existsSync(path)) {
          process.stdout.write(`kept     ${path} (exists)\n`);
          continue;
        }
        await mkdir(join(path, '..'), { recursive: true });
        await writeFile(path, text, { flag: 'wx' });
        created.push(path);
        process.stdout.write(`created  ${path}\n`);
      }
      if (created.length > 0) process.stdout.write('Next: weft workflow validate hello.toml && weft run hello.toml\n');
    });
}
