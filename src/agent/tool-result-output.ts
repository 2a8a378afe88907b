/**
 * A tool result as the model gets it back (spec §3.4): text as is; images as image parts
 * when the model's API takes images in tool results, else `[image content]`; audio and
 * binary resources as placeholders. Errors stay text, so every provider marks them.
 */
import type { ToolResultPart } from 'ai';
import { resultText, type ToolResult } from '../tools/tool.js';
import type { ImageInput } from './model-client.js';

export type ToolResultOutput = ToolResultPart['output'];

type ContentOutput = Extract<ToolResultOutput, { type: 'content' }>;
type ContentPart = ContentOutput['value'][number];

/**
 * One text part (images marked `[image 1]`, `[image 2]` where they were) and then the
 * images: Gemini before version 3 turns every text part into its own function response,
 * and the API wants exactly one per call.
 *
 * @example
 * toolResultOutput({ content: [{ type: 'text', text: 'Logo:' }, { type: 'image', data, mimeType: 'image/png' }], isError: false }, { messages: true, toolResults: true })
 * // → { type: 'content', value: [{ type: 'text', text: 'Logo:\n[image 1]' }, { type: 'image-data', data, mediaType: 'image/png' }] }
 */
export function toolResultOutput(result: ToolResult, imageInput: ImageInput | undefined): ToolResultOutput {
  if (result.isError) return { type: 'error-text', value: resultText(result) };
  const images = result.content.filter((part) => part.type === 'image');
  if (imageInput?.toolResults !== true || images.length === 0) return { type: 'text', value: resultText(result) };
  let seen = 0;
  const text = result.content
    .map((part) => (part.type === 'image' ? `[image ${(seen += 1)}]` : resultText({ content: [part], isError: false })))
    .join('\n');
  const value: ContentPart[] = [
    { type: 'text', text },
    ...images.map((image): ContentPart => ({ type: 'image-data', data: image.data, mediaType: image.mimeType })),
  ];
  return { type: 'content', value };
}
