import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import type { LlmSettings } from '../../core/settings/settings.js';
import { parseModelSpec, resolveProvider, selectModel } from './model-selection.js';

const llm = (fields: Partial<LlmSettings> = {}): LlmSettings => ({ aliases: {}, providers: {}, ...fields });

function failure(work: () => unknown): WeftError {
  try {
    work();
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected a WeftError');
}

describe('parseModelSpec', () => {
  it('splits provider:model at the first colon, follows aliases and uses the default provider for bare names', () => {
    const settings = llm({ provider: 'ollama', aliases: { fast: 'smart', smart: 'anthropic:claude-sonnet-4-5' } });
    expect(parseModelSpec('ollama:llama3.1:8b', settings, 'node x')).toEqual({ provider: 'ollama', model: 'llama3.1:8b' });
    expect(parseModelSpec('fast', settings, 'node x')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelSpec('qwen3', settings, 'node x')).toEqual({ provider: 'ollama', model: 'qwen3' });
  });

  it('names the known providers and aliases when the provider is unknown', () => {
    const error = failure(() =>
      parseModelSpec('llama3.1:8b', llm({ aliases: { fast: 'anthropic:claude-haiku-4-5' } }), "model of node 'x'"),
    );
    expect(error.code).toBe('MODEL_CONFIG_INVALID');
    expect(error.message).toBe(
      "Unknown model provider 'llama3.1' in model 'llama3.1:8b' (model of node 'x'). Known providers: anthropic, openai, openai-chat, google, gemini, openai-compatible, ollama, lmstudio, vllm, llamacpp, openrouter. Aliases in [llm.aliases]: fast. A model name that contains ':' needs its provider in front, e.g. 'ollama:llama3.1:8b'.",
    );
    expect(failure(() => parseModelSpec('fastest', llm(), 'the run')).message).toMatch(
      /^Unknown model 'fastest' \(the run\): it is not an alias and has no provider\. Known providers: anthropic, .* Aliases in \[llm\.aliases\]: \(none\)\./,
    );
    expect(failure(() => parseModelSpec('a', llm({ aliases: { a: 'b', b: 'a' } }), 'x')).message).toMatch(
      /^Model alias 'a' \(x\) loops: a → b → a\./,
    );
  });
});

describe('selectModel', () => {
  it('takes the first model set, then [llm] model, else explains where to set one', () => {
    const settings = llm({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(
      selectModel(
        [
          { spec: undefined, where: 'node' },
          { spec: 'openai:gpt-5', where: 'run' },
        ],
        settings,
      ),
    ).toEqual({ provider: 'openai', model: 'gpt-5' });
    expect(selectModel([{ spec: '', where: 'node' }], settings)).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(failure(() => selectModel([], llm())).message).toMatch(
      /^No model configured\. Set model = "<provider>:<model>" on the node or in the workflow's \[run\], or add \[llm\] provider and model/,
    );
  });
});

describe('resolveProvider', () => {
  it('reads keys from the standard variables and base URLs from settings', () => {
    expect(resolveProvider('anthropic', llm(), { ANTHROPIC_API_KEY: 'k-anthropic' })).toEqual({
      name: 'anthropic',
      api: 'anthropic-messages',
      apiKey: 'k-anthropic',
      keyEnv: 'ANTHROPIC_API_KEY',
    });
    expect(resolveProvider('google', llm(), { GOOGLE_GENERATIVE_AI_API_KEY: 'k-google' })).toMatchObject({
      api: 'gemini',
      apiKey: 'k-google',
      keyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY',
    });
    expect(resolveProvider('ollama', llm(), {})).toEqual({
      name: 'ollama',
      api: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:11434/v1',
      keyEnv: 'OLLAMA_API_KEY',
    });
    expect(
      resolveProvider('openai', llm({ provider: 'openai', baseUrl: 'http://proxy/v1', apiKeyEnv: 'PROXY_KEY' }), { PROXY_KEY: 'k-proxy' }),
    ).toEqual({
      name: 'openai',
      api: 'openai-responses',
      baseUrl: 'http://proxy/v1',
      apiKey: 'k-proxy',
      keyEnv: 'PROXY_KEY',
    });
    const together = llm({
      providers: { together: { api: 'openai-compatible', baseUrl: 'https://api.together.xyz/v1', apiKeyEnv: 'TOGETHER_API_KEY' } },
    });
    expect(resolveProvider('together', together, { TOGETHER_API_KEY: 'k-together' })).toMatchObject({
      api: 'openai-compatible',
      baseUrl: 'https://api.together.xyz/v1',
      apiKey: 'k-together',
    });
  });

  it('names the variable and the setting when a key is missing', () => {
    const error = failure(() => resolveProvider('google', llm(), {}));
    expect(error.code).toBe('MODEL_KEY_MISSING');
    expect(error.message).toBe(
      "No API key for provider 'google': GEMINI_API_KEY is not set. Export GEMINI_API_KEY=<key>, or name another variable with api_key_env in [llm.providers.google] in .weft/settings.toml (or ~/.weft/settings.toml).",
    );
    expect(error.data).toEqual({ provider: 'google', variable: 'GEMINI_API_KEY' });
  });

  it('explains a custom provider without api or base_url', () => {
    expect(failure(() => resolveProvider('mine', llm({ providers: { mine: {} } }), {})).message).toMatch(
      /^\[llm\.providers\.mine\] needs api \(one of anthropic-messages, openai-responses, openai-chat, gemini, openai-compatible\)/,
    );
    expect(failure(() => resolveProvider('openai-compatible', llm(), {})).message).toMatch(
      /^Provider 'openai-compatible' speaks the OpenAI-compatible API and needs a base URL/,
    );
  });
});
