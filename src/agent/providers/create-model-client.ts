/**
 * Builds the `ModelClient` for a model string: selection (`model-selection.ts`), the
 * provider package for its API, key and base URL from settings and the environment.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { LlmSettings } from '../../core/settings/settings.js';
import type { ModelClient } from '../model-client.js';
import { AiSdkModelClient } from './ai-sdk-model-client.js';
import { PricedModelClient } from '../pricing/priced-model-client.js';
import { failFastFetch } from './fail-fast-fetch.js';
import type { ModelErrorContext } from './model-errors.js';
import { resolveProvider, selectModel, type ModelSource, type ResolvedProvider } from './model-selection.js';
import { imageInputOf, toolDialectOf } from './provider-catalog.js';

/** Retries of one model call on 429, 5xx and connection errors (the SDK's default is 2). */
export const DEFAULT_MAX_RETRIES = 4;

export interface ModelClientOptions {
  llm: LlmSettings;
  env: Readonly<Record<string, string | undefined>>;
}

function languageModel(provider: ResolvedProvider, modelId: string, context: ModelErrorContext): LanguageModel {
  const auth = {
    fetch: failFastFetch(context),
    ...(provider.baseUrl === undefined ? {} : { baseURL: provider.baseUrl }),
    ...(provider.apiKey === undefined ? {} : { apiKey: provider.apiKey }),
  };
  switch (provider.api) {
    case 'anthropic-messages':
      return createAnthropic(auth)(modelId);
    case 'openai-responses':
      return createOpenAI(auth).responses(modelId);
    case 'openai-chat':
      return createOpenAI(auth).chat(modelId);
    case 'gemini':
      return createGoogleGenerativeAI(auth)(modelId);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: provider.name,
        baseURL: provider.baseUrl ?? '',
        fetch: auth.fetch,
        ...(provider.apiKey === undefined ? {} : { apiKey: provider.apiKey }),
        includeUsage: true,
      }).chatModel(modelId);
    default: {
      const unreachable: never = provider.api;
      return unreachable;
    }
  }
}

/** The model a stage would use and where its key comes from. */
export interface ModelConfigCheck {
  provider: string;
  model: string;
  /** The variable the key is read from, when the provider takes one and it is set. */
  keyEnv?: string;
}

/**
 * What `createModelClient` would use, without building a client or calling anyone:
 * throws the same `WeftError` (`MODEL_CONFIG_INVALID`, `MODEL_KEY_MISSING`) it would.
 *
 * @example checkModelConfig([{ spec: undefined, where: "node 'review'" }], { llm, env: process.env }) // throws: No model configured…
 */
export function checkModelConfig(sources: readonly ModelSource[], options: ModelClientOptions): ModelConfigCheck {
  const selection = selectModel(sources, options.llm);
  const provider = resolveProvider(selection.provider, options.llm, options.env);
  return {
    provider: selection.provider,
    model: selection.model,
    ...(provider.keyEnv !== undefined && provider.apiKey !== undefined ? { keyEnv: provider.keyEnv } : {}),
  };
}

/**
 * The client for the first model set among `sources` (else `[llm] model`).
 *
 * @example
 * const client = createModelClient([{ spec: 'anthropic:claude-sonnet-4-5', where: "node 'review'" }], { llm: settings.llm, env: process.env });
 */
export function createModelClient(sources: readonly ModelSource[], options: ModelClientOptions): ModelClient {
  const selection = selectModel(sources, options.llm);
  const provider = resolveProvider(selection.provider, options.llm, options.env);
  const errorContext: ModelErrorContext = {
    provider: selection.provider,
    model: selection.model,
    ...(provider.keyEnv === undefined ? {} : { keyEnv: provider.keyEnv }),
    ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl }),
  };
  const client = new AiSdkModelClient({
    provider: selection.provider,
    modelId: selection.model,
    toolDialect: toolDialectOf(provider.api),
    imageInput: imageInputOf(provider.api),
    model: languageModel(provider, selection.model, errorContext),
    maxRetries: options.llm.maxRetries ?? DEFAULT_MAX_RETRIES,
    streaming: options.llm.stream ?? true,
    errorContext,
  });
  const pricedAs = {
    name: selection.provider,
    api: provider.api,
    ...(provider.baseUrl === undefined ? {} : { baseUrl: provider.baseUrl }),
  };
  return new PricedModelClient(client, pricedAs, options.llm.prices ?? {});
}
