/**
 * The one registry of callable tools. Built-ins register once; MCP servers replace their
 * own set whenever their tool list changes, so callers always see the current set.
 */
import { WeftError } from '../core/errors.js';
import type { Tool } from './tool.js';

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #groups = new Map<string, Set<string>>();

  register(tool: Tool): void {
    if (this.#tools.has(tool.name)) {
      throw new WeftError('INTERNAL', `A tool named '${tool.name}' is already registered.`);
    }
    this.#tools.set(tool.name, tool);
  }

  /** Replaces every tool of a group (one MCP server) at once; returns what was added and removed. */
  replaceGroup(group: string, tools: Tool[]): { added: string[]; removed: string[] } {
    const previous = this.#groups.get(group) ?? new Set<string>();
    const next = new Set(tools.map((tool) => tool.name));
    for (const name of previous) if (!next.has(name)) this.#tools.delete(name);
    for (const tool of tools) {
      const existing = this.#tools.get(tool.name);
      if (existing && !previous.has(tool.name)) {
        throw new WeftError('INTERNAL', `Tool '${tool.name}' of '${group}' collides with an existing tool.`);
      }
      this.#tools.set(tool.name, tool);
    }
    this.#groups.set(group, next);
    return {
      added: [...next].filter((name) => !previous.has(name)),
      removed: [...previous].filter((name) => !next.has(name)),
    };
  }

  removeGroup(group: string): void {
    this.replaceGroup(group, []);
    this.#groups.delete(group);
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }
}
