/**
 * The OpenTelemetry GenAI semantic conventions weft's model, agent and tool spans follow.
 * The names come from `@opentelemetry/semantic-conventions/incubating` (bundled, so only
 * the strings used are shipped); they are still "development" in the spec, hence this one
 * module to change when they move.
 */
export {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  ATTR_MCP_METHOD_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from '@opentelemetry/semantic-conventions/incubating';
import {
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';

/** weft's provider names that have a well-known `gen_ai.provider.name`; others are reported as configured (`ollama`, `openrouter`, …). */
const WELL_KNOWN_PROVIDERS: Readonly<Record<string, string>> = {
  anthropic: GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  openai: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  'openai-chat': GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  google: GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
  gemini: GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
};

/**
 * The `gen_ai.provider.name` (and older `gen_ai.system`) of a configured provider.
 *
 * @example genAiProviderName('google') // → 'gcp.gemini'
 */
export function genAiProviderName(provider: string): string {
  return WELL_KNOWN_PROVIDERS[provider] ?? provider;
}
