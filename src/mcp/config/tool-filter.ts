/**
 * Per-server tool filters: `enabled_tools` is an allow-list applied first, then
 * `disabled_tools` removes tools from what is left. Names are the server's own tool names.
 */
import type { McpServerConfig } from './server-config.js';

export function isToolAllowed(config: Pick<McpServerConfig, 'enabledTools' | 'disabledTools'>, toolName: string): boolean {
  if (config.enabledTools !== undefined && !config.enabledTools.includes(toolName)) return false;
  return !config.disabledTools.includes(toolName);
}
