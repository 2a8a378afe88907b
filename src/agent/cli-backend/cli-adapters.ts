/**
 * The CLI adapters this build of weft has, by the name a workflow uses (`cli = "claude"`).
 */
import type { CliAdapter, CliName } from './cli-adapter.js';
import { claudeCodeAdapter } from './claude-code-adapter.js';
import { codexAdapter } from './codex-adapter.js';
import { geminiAdapter } from './gemini-adapter.js';

export const cliAdapters: Readonly<Partial<Record<CliName, CliAdapter>>> = {
  claude: claudeCodeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
};
