/** The agent layer's public surface: model clients, the agent loop and the engine's stage runner. */
export { modelSources, ModelStageRunner, type AgentRunnerOptions } from './agent-stage-runner.js';
export { runAgentLoop, type AgentLoopOutcome, type AgentLoopParams } from './agent-loop.js';
export {
  addUsage,
  EMPTY_USAGE,
  type ImageInput,
  type ModelClient,
  type ModelMessage,
  type ModelRequest,
  type ModelRetry,
  type ModelToolCall,
  type ModelToolSpec,
  type ModelTurn,
  type ModelUsage,
  type ToolDialect,
} from './model-client.js';
export {
  checkModelConfig,
  createModelClient,
  DEFAULT_MAX_RETRIES,
  type ModelClientOptions,
  type ModelConfigCheck,
} from './providers/create-model-client.js';
export {
  parseModelSpec,
  resolveProvider,
  selectModel,
  type ModelSelection,
  type ModelSource,
  type ResolvedProvider,
} from './providers/model-selection.js';
export { KNOWN_PROVIDERS, MODEL_APIS, type ModelApi } from './providers/provider-catalog.js';
export { adaptSchema, adaptTools, type AdaptedTools } from './tool-schemas.js';
export { DEFAULT_MAX_TURNS, type AgentLimits } from './stop-condition.js';
export { CliStageRunner, type CliBackendOptions } from './cli-backend/cli-stage-runner.js';
export { cliAdapters } from './cli-backend/cli-adapters.js';
export type { CliAdapter, CliEvent, CliInvocation, CliStageSpec, CliStreamParser } from './cli-backend/cli-adapter.js';
