/**
 * The providers weft knows by name: which wire API each speaks, where it lives by
 * default, and which environment variable holds its key. `[llm.providers.<name>]` in
 * settings can override a known provider or add a new one that speaks one of these APIs.
 */
import type { ImageInput, ToolDialect } from '../model-client.js';

/** The wire protocols weft can talk. */
export const MODEL_APIS = ['anthropic-messages', 'openai-responses', 'openai-chat', 'gemini', 'openai-compatible'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

export interface ProviderInfo {
  api: ModelApi;
  /** Undefined: the provider package's own default. */
  baseUrl?: string;
  /** Variables tried in order for the key; the first is the one error messages name. */
  keyEnv: readonly string[];
  keyRequired: boolean;
  description: string;
}

export const KNOWN_PROVIDERS: Readonly<Record<string, ProviderInfo>> = {
  anthropic: { api: 'anthropic-messages', keyEnv: ['ANTHROPIC_API_KEY'], keyRequired: true, description: 'Anthropic Messages API' },
  openai: { api: 'openai-responses', keyEnv: ['OPENAI_API_KEY'], keyRequired: true, description: 'OpenAI Responses API' },
  'openai-chat': { api: 'openai-chat', keyEnv: ['OPENAI_API_KEY'], keyRequired: true, description: 'OpenAI Chat Completions API' },
  google: {
    api: 'gemini',
    keyEnv: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
    keyRequired: true,
    description: 'Google Gemini API',
  },
  gemini: {
    api: 'gemini',
    keyEnv: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
    keyRequired: true,
    description: 'Google Gemini API (same as google)',
  },
  'openai-compatible': {
    api: 'openai-compatible',
    keyEnv: [],
    keyRequired: false,
    description: 'any OpenAI-compatible Chat Completions endpoint (needs base_url)',
  },
  ollama: {
    api: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:11434/v1',
    keyEnv: ['OLLAMA_API_KEY'],
    keyRequired: false,
    description: 'Ollama',
  },
  lmstudio: {
    api: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:1234/v1',
    keyEnv: ['LMSTUDIO_API_KEY'],
    keyRequired: false,
    description: 'LM Studio',
  },
  vllm: {
    api: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:8000/v1',
    keyEnv: ['VLLM_API_KEY'],
    keyRequired: false,
    description: 'vLLM',
  },
  llamacpp: {
    api: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:8080/v1',
    keyEnv: ['LLAMACPP_API_KEY'],
    keyRequired: false,
    description: 'llama.cpp server',
  },
  openrouter: {
    api: 'openai-compatible',
    baseUrl: 'https://openrouter.ai/api/v1',
    keyEnv: ['OPENROUTER_API_KEY'],
    keyRequired: true,
    description: 'OpenRouter',
  },
};

export function isModelApi(value: string): value is ModelApi {
  return (MODEL_APIS as readonly string[]).includes(value);
}

export function toolDialectOf(api: ModelApi): ToolDialect {
  switch (api) {
    case 'anthropic-messages':
      return 'anthropic';
    case 'openai-responses':
    case 'openai-chat':
      return 'openai';
    case 'gemini':
      return 'gemini';
    case 'openai-compatible':
      return 'openai-compatible';
    default: {
      const unreachable: never = api;
      return unreachable;
    }
  }
}

/**
 * Where each API takes images. OpenAI-compatible endpoints get none: many local models
 * answer an image part with a 400, and Chat Completions cannot put one in a tool message.
 */
export function imageInputOf(api: ModelApi): ImageInput {
  switch (api) {
    case 'anthropic-messages':
    case 'openai-responses':
    case 'gemini':
      return { messages: true, toolResults: true };
    case 'openai-chat':
      return { messages: true, toolResults: false };
    case 'openai-compatible':
      return { messages: false, toolResults: false };
    default: {
      const unreachable: never = api;
      return unreachable;
    }
  }
}
