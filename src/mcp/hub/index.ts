/** The MCP client hub's public surface. */
export { McpHub, type McpCallOptions, type McpHubOptions, type McpStartOptions } from './mcp-hub.js';
export { qualifiedToolName, toolPatternMayName, MAX_TOOL_NAME_LENGTH } from './tool-names.js';
export { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
export { withStderrTail } from './startup-failure.js';
export { applyElicitationDefaults, type ElicitationContent, type ElicitationSchema } from './elicitation-defaults.js';
export type {
  ElicitationHandler,
  ElicitationRequest,
  HostEnv,
  McpHubHandlers,
  McpPrompt,
  McpPromptInfo,
  McpPromptMessage,
  McpResourceInfo,
  McpResourceRead,
  McpResourceTemplateInfo,
  McpServerState,
  McpServerStatus,
  McpServerTimings,
  SamplingHandler,
  SamplingRequest,
} from './types.js';
