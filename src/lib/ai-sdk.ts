/**
 * `weft-runtime/ai-sdk`: the tools of weft's MCP client as an AI SDK `tools` object, for a
 * `generateText`/`streamText` app. Names and schemas are made provider-safe the way weft's
 * own agents get them; every call goes through the client's executor (argument check,
 * approval rules, timeout, output budget) and stops when the AI SDK's `abortSignal` aborts.
 *
 * @module weft-runtime/ai-sdk
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import { adaptTools } from '../agent/tool-schemas.js';
import { resultText } from '../tools/tool.js';
import type { McpClient, McpToolInfo } from './mcp.js';

/** Whose rules tool names and schemas follow (the same dialects as weft's agents). */
export type ToolDialect = 'anthropic' | 'openai' | 'gemini' | 'openai-compatible';

/** Which tools to offer and for which provider. */
export interface AiSdkToolsOptions {
  /** The provider the tools are for: names and schemas follow its rules. Default `openai`. */
  dialect?: ToolDialect;
  /** Only these qualified tools (`mcp__<server>__<tool>`); default every tool of the client. */
  include?: (tool: McpToolInfo) => boolean;
  /** Told about tools left out because their schema cannot be offered to the provider. */
  onWarning?: (message: string) => void;
}

/**
 * @example
 * const mcp = await connectMcp();
 * const { text } = await generateText({ model, tools: aiSdkTools(mcp), stopWhen: stepCountIs(5), prompt });
 */
export function aiSdkTools(client: McpClient, options: AiSdkToolsOptions = {}): ToolSet {
  const listed = client.tools().filter((info) => options.include?.(info) ?? true);
  const adapted = adaptTools(listed, options.dialect ?? 'openai');
  for (const warning of adapted.warnings) options.onWarning?.(warning);
  const tools: ToolSet = {};
  for (const spec of adapted.specs) {
    const original = adapted.toolFor(spec.name)!;
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.inputSchema),
      execute: async (args: unknown, { abortSignal }) => {
        const result = await client.callTool(original.name, args, abortSignal ? { signal: abortSignal } : {});
        // A thrown error becomes the AI SDK's tool-error part, which the model sees as a failed call.
        if (result.isError) throw new Error(resultText(result));
        return resultText(result);
      },
    });
  }
  return tools;
}
