/**
 * The eight built-in tools, configured from settings.
 */
import type { Tool } from '../tool.js';
import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import { createShellTool } from './shell.js';
import { createWebFetchTool } from './web-fetch.js';
import { writeFileTool } from './write-file.js';

export interface BuiltinToolOptions {
  shellTimeoutMs?: number;
  /** `[tools.web_fetch] allow_hosts`. */
  webFetchAllowHosts?: readonly string[];
  summarise?: (markdown: string, prompt: string, signal: AbortSignal) => Promise<string>;
}

export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    createShellTool({ defaultTimeoutMs: options.shellTimeoutMs }),
    readFileTool,
    writeFileTool,
    editFileTool,
    grepTool,
    globTool,
    listDirTool,
    createWebFetchTool({ summarise: options.summarise, allowHosts: options.webFetchAllowHosts }),
  ];
}
