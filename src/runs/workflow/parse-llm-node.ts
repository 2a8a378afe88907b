/**
 * `agent` and `prompt` nodes: the prompt comes inline (`prompt`) or from a file beside the
 * workflow (`prompt_file`), which is read now so its references are checked too. Model
 * settings are validated for shape only; the agent layer runs them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { checkTemplateFile, checkTemplates } from './check-templates.js';
import type { FieldReader } from './field-reader.js';
import { parseBudgetTable } from './parse-budget.js';
import { parseRetry } from './parse-retry.js';
import type { ReferenceScope } from './references.js';
import { AGENT_BACKENDS, CLI_NAMES, type AgentNode, type PromptNode } from './types.js';

interface Base {
  name: string;
  description?: string;
  line: number;
  edges: AgentNode['edges'];
}

function readPrompt(node: FieldReader, scope: ReferenceScope, dir: string): { prompt: string; promptFile?: string } {
  const inline = node.string('prompt');
  const file = node.string('prompt_file', { nonEmpty: true });
  if (node.has('prompt') && node.has('prompt_file')) {
    node.problem('prompt_file', `has both 'prompt' and 'prompt_file' — keep one of them`);
  } else if (!node.has('prompt') && !node.has('prompt_file')) {
    node.problem(undefined, `needs a prompt — add prompt = "…" or prompt_file = "<file>.md" (relative to this workflow file)`);
  }
  if (inline !== undefined) checkTemplates(node, 'prompt', scope);
  if (file === undefined) return { prompt: inline ?? '' };
  const absolute = resolve(dir, file);
  if (!existsSync(absolute)) {
    node.problem('prompt_file', `prompt_file '${file}' does not exist — create it or fix the path (it is relative to this workflow file)`);
    return { prompt: inline ?? '', promptFile: absolute };
  }
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    node.problem('prompt_file', `prompt_file '${file}' cannot be read (${(error as Error).message}) — make it a readable text file`);
    return { prompt: inline ?? '', promptFile: absolute };
  }
  checkTemplateFile(node.context.problems, node.subject, join(dirname(node.context.file), file), text, scope);
  return { prompt: text, promptFile: absolute };
}

export function parseLlmNode(
  node: FieldReader,
  kind: 'agent' | 'prompt',
  base: Base,
  scope: ReferenceScope,
  dir: string,
): AgentNode | PromptNode {
  const { prompt, promptFile } = readPrompt(node, scope, dir);
  const system = node.string('system');
  if (system !== undefined) checkTemplates(node, 'system', scope);
  const fields = {
    ...base,
    prompt,
    ...(promptFile === undefined ? {} : { promptFile }),
    ...(system === undefined ? {} : { system }),
    model: node.string('model', { nonEmpty: true }),
    maxTokens: node.integer('max_tokens', 1),
    timeoutMs: node.duration('timeout'),
    retry: parseRetry(node),
    budget: parseBudgetTable(node),
  };
  if (kind === 'prompt') return { kind, ...fields };
  return { kind, ...fields, maxTurns: node.integer('max_turns', 1), tools: node.stringArray('tools'), ...parseBackend(node) };
}

/** `backend = "cli"` with `cli = "claude" | "codex" | "gemini"`; either may come from `[llm]` in settings instead. */
function parseBackend(node: FieldReader): Pick<AgentNode, 'backend' | 'cli'> {
  const backend = node.oneOf('backend', AGENT_BACKENDS);
  const cli = node.oneOf('cli', CLI_NAMES);
  if (backend === 'weft' && node.has('cli'))
    node.problem('cli', `'cli' is only used with backend = "cli" — remove it or set backend = "cli"`);
  const onCli = backend === 'cli' || (backend === undefined && node.has('cli'));
  // A CLI brings its own tools and token limits: these would be silently ignored.
  if (onCli && node.has('tools'))
    node.problem(
      'tools',
      `'tools' picks weft's tools; a CLI stage uses the CLI's own — remove it (approval rules allow or deny the CLI's tools)`,
    );
  if (onCli && node.has('max_tokens'))
    node.problem('max_tokens', `'max_tokens' is not passed to a CLI — remove it (max_turns and timeout bound a CLI stage)`);
  return { ...(backend === undefined ? {} : { backend }), ...(cli === undefined ? {} : { cli }) };
}
