/**
 * Public surface of MCP server configuration: loading with precedence, validation,
 * interpolation, the child environment, tool filters and the edits behind `weft mcp add/remove`.
 */
export type { McpConfigSource, McpConfigSourceKind, McpServerConfig, McpTransportType } from './server-config.js';
export { MCP_DEFAULTS, MCP_SERVER_NAME } from './server-config.js';
export type { McpConfigProblem, McpConfigSeverity } from './problems.js';
export { hasErrors, problemsError } from './problems.js';
export {
  loadMcpServerConfigs,
  resolveServerConfig,
  type LoadedMcpServerConfigs,
  type LoadMcpServerConfigsParams,
  type SettingsDocument,
} from './load-configs.js';
export { buildChildEnv, SAFE_ENV_BASE } from './child-env.js';
export { isToolAllowed } from './tool-filter.js';
export { interpolate, type InterpolationScope } from './interpolate.js';
export {
  addServerToProjectMcpJson,
  removeServerFromProjectMcpJson,
  addServerToMcpJsonText,
  removeServerFromMcpJsonText,
} from './edit-mcp-json.js';
export {
  addServerToUserSettings,
  removeServerFromUserSettings,
  addServerToTomlText,
  removeServerFromTomlText,
} from './edit-user-settings.js';
export { parseMcpAddJson, mcpJsonEntryToToml } from './add-json.js';
export { localMcpJsonFile } from './local-scope.js';
export { IMPORT_SOURCES, isImportSource, readImportableServers, type McpImportSource } from './import-sources.js';
