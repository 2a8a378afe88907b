/**
 * Which model a stage uses and how its provider is reached. A model is written
 * `provider:model` (`anthropic:claude-sonnet-4-5`, `ollama:llama3.1:8b` — split at the
 * first colon), as an alias from `[llm.aliases]`, or as a bare model name for the
 * default `[llm] provider`. The first of node `model`, the run's model, the workflow's
 * `[run] model` and `[llm] model` that is set wins.
 */
import { WeftError } from '../../core/errors.js';
import { registerSecret } from '../../core/redact.js';
import type { LlmSettings } from '../../core/settings/settings.js';
import { isModelApi, KNOWN_PROVIDERS, MODEL_APIS, type ModelApi } from './provider-catalog.js';

export interface ModelSelection {
  provider: string;
  model: string;
}

/** A model candidate and where it was written, for error messages. */
export interface ModelSource {
  spec: string | undefined;
  where: string;
}

export interface ResolvedProvider {
  name: string;
  api: ModelApi;
  baseUrl?: string;
  apiKey?: string;
  /** The variable the key came from (or should come from). */
  keyEnv?: string;
}

const SETTINGS_FILE = '.weft/settings.toml (or ~/.weft/settings.toml)';

function providerNames(llm: LlmSettings): string[] {
  return [...new Set([...Object.keys(KNOWN_PROVIDERS), ...Object.keys(llm.providers)])];
}

function knownList(llm: LlmSettings): string {
  const aliases = Object.keys(llm.aliases);
  return `Known providers: ${providerNames(llm).join(', ')}. Aliases in [llm.aliases]: ${aliases.length > 0 ? aliases.join(', ') : '(none)'}.`;
}

function isProvider(name: string, llm: LlmSettings): boolean {
  return Object.hasOwn(KNOWN_PROVIDERS, name) || Object.hasOwn(llm.providers, name);
}

/**
 * Parses one model string.
 *
 * @example parseModelSpec('ollama:llama3.1:8b', llm, 'node review') // → { provider: 'ollama', model: 'llama3.1:8b' }
 */
export function parseModelSpec(spec: string, llm: LlmSettings, where: string): ModelSelection {
  const seen: string[] = [];
  let current = spec.trim();
  while (Object.hasOwn(llm.aliases, current)) {
    if (seen.includes(current))
      throw new WeftError(
        'MODEL_CONFIG_INVALID',
        `Model alias '${spec}' (${where}) loops: ${[...seen, current].join(' → ')}. Fix [llm.aliases] in ${SETTINGS_FILE}.`,
      );
    seen.push(current);
    current = (llm.aliases[current] ?? '').trim();
  }
  const colon = current.indexOf(':');
  if (colon > 0) {
    const provider = current.slice(0, colon);
    const model = current.slice(colon + 1);
    if (!isProvider(provider, llm)) {
      throw new WeftError(
        'MODEL_CONFIG_INVALID',
        `Unknown model provider '${provider}' in model '${current}' (${where}). ${knownList(llm)} A model name that contains ':' needs its provider in front, e.g. 'ollama:${current}'.`,
        { data: { model: current, provider } },
      );
    }
    if (model === '')
      throw new WeftError(
        'MODEL_CONFIG_INVALID',
        `Model '${current}' (${where}) names no model after '${provider}:'; write e.g. '${provider}:<model>'.`,
      );
    return { provider, model };
  }
  if (current !== '' && llm.provider !== undefined) {
    if (!isProvider(llm.provider, llm)) throw unknownDefaultProvider(llm);
    return { provider: llm.provider, model: current };
  }
  throw new WeftError(
    'MODEL_CONFIG_INVALID',
    `Unknown model '${spec}' (${where}): it is not an alias and has no provider. ${knownList(llm)} Write it as "<provider>:<model>" (e.g. "anthropic:claude-sonnet-4-5"), add it to [llm.aliases], or set [llm] provider in ${SETTINGS_FILE}.`,
    { data: { model: spec } },
  );
}

function unknownDefaultProvider(llm: LlmSettings): WeftError {
  return new WeftError(
    'MODEL_CONFIG_INVALID',
    `Unknown provider '${llm.provider}' in [llm] provider. ${knownList(llm)} Add [llm.providers.${llm.provider}] with api and base_url to define it.`,
  );
}

/** The first model that is set among `sources`, then `[llm] model`; a clear error when none is. */
export function selectModel(sources: readonly ModelSource[], llm: LlmSettings): ModelSelection {
  for (const source of sources) {
    if (source.spec !== undefined && source.spec.trim() !== '') return parseModelSpec(source.spec, llm, source.where);
  }
  if (llm.model !== undefined && llm.model.trim() !== '') return parseModelSpec(llm.model, llm, `[llm] model in ${SETTINGS_FILE}`);
  if (llm.provider !== undefined) {
    throw new WeftError(
      'MODEL_CONFIG_INVALID',
      `[llm] provider is '${llm.provider}' but no model is set. Add model = "<model>" under [llm] in ${SETTINGS_FILE}, or set model on the node.`,
    );
  }
  throw new WeftError(
    'MODEL_CONFIG_INVALID',
    `No model configured. Set model = "<provider>:<model>" on the node or in the workflow's [run], or add [llm] provider and model to ${SETTINGS_FILE}. ${knownList(llm)}`,
  );
}

/**
 * How to reach `name`: its API, base URL and key. A missing required key is a
 * `MODEL_KEY_MISSING` error naming the variable and the setting that can change it.
 */
export function resolveProvider(name: string, llm: LlmSettings, env: Readonly<Record<string, string | undefined>>): ResolvedProvider {
  const known = KNOWN_PROVIDERS[name];
  const entry = llm.providers[name];
  const isDefault = llm.provider === name;
  let api = known?.api;
  if (entry?.api !== undefined) {
    const base = KNOWN_PROVIDERS[entry.api]?.api ?? (isModelApi(entry.api) ? entry.api : undefined);
    if (base === undefined) {
      throw new WeftError(
        'MODEL_CONFIG_INVALID',
        `[llm.providers.${name}] api = '${entry.api}' is not an API weft speaks. Use one of: ${MODEL_APIS.join(', ')}.`,
      );
    }
    api = base;
  }
  if (api === undefined) {
    throw new WeftError(
      'MODEL_CONFIG_INVALID',
      `[llm.providers.${name}] needs api (one of ${MODEL_APIS.join(', ')}) because '${name}' is not a provider weft knows.`,
    );
  }
  const baseUrl = (isDefault ? llm.baseUrl : undefined) ?? entry?.baseUrl ?? known?.baseUrl;
  if (api === 'openai-compatible' && baseUrl === undefined) {
    throw new WeftError(
      'MODEL_CONFIG_INVALID',
      `Provider '${name}' speaks the OpenAI-compatible API and needs a base URL: set base_url in [llm.providers.${name}] (or in [llm] when it is the default provider) in ${SETTINGS_FILE}, e.g. "http://127.0.0.1:11434/v1".`,
    );
  }
  const configuredEnv = (isDefault ? llm.apiKeyEnv : undefined) ?? entry?.apiKeyEnv;
  const candidates = configuredEnv !== undefined ? [configuredEnv] : (known?.keyEnv ?? []);
  const keyEnv = candidates.find((variable) => (env[variable] ?? '') !== '') ?? candidates[0];
  const apiKey = keyEnv === undefined ? undefined : env[keyEnv] || undefined;
  const keyRequired = configuredEnv !== undefined || (known?.keyRequired ?? false);
  if (apiKey === undefined && keyRequired) {
    const setting = isDefault ? `api_key_env in [llm]` : `api_key_env in [llm.providers.${name}]`;
    const how = configuredEnv !== undefined ? `The variable ${configuredEnv}, named by ${setting}, is not set` : `${keyEnv} is not set`;
    throw new WeftError(
      'MODEL_KEY_MISSING',
      `No API key for provider '${name}': ${how}. Export ${keyEnv}=<key>, or name another variable with ${setting} in ${SETTINGS_FILE}.`,
      {
        data: { provider: name, variable: keyEnv ?? null },
      },
    );
  }
  registerSecret(apiKey, keyEnv ?? `${name}-api-key`);
  return {
    name,
    api,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(keyEnv === undefined ? {} : { keyEnv }),
  };
}
