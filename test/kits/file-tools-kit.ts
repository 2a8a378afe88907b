/**
 * Test support for the file tools: a real temp workspace with a sibling "outside" folder
 * (for escape attempts) and a fresh ToolContext per session.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import type { Tool, ToolContext } from '../../src/tools/tool.js';
import { createFileReadTracker, resultText } from '../../src/tools/tool.js';

export interface TestWorkspace {
  /** The workspace root. */
  root: string;
  /** A folder beside the workspace, for escape attempts. */
  outside: string;
  context: ToolContext;
  /** Writes a file relative to the root, creating folders. */
  put(relative: string, content: string | Uint8Array): Promise<string>;
  run(tool: Tool, args: Record<string, unknown>): Promise<string>;
  cleanup(): Promise<void>;
}

export async function createTestWorkspace(): Promise<TestWorkspace> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'weft-files-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'top secret\n');
  const context: ToolContext = {
    workspaceRoot: root,
    signal: new AbortController().signal,
    readFiles: createFileReadTracker(),
    logger: silentLogger,
  };
  return {
    root,
    outside,
    context,
    async put(relative, content) {
      const file = path.join(root, relative);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
      return file;
    },
    async run(tool, args) {
      const result = await tool.execute(args, context);
      if (result.isError) throw new Error(`${tool.name} returned an error result: ${resultText(result)}`);
      return resultText(result);
    },
    cleanup: () => fs.rm(base, { recursive: true, force: true }),
  };
}
