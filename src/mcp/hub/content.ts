/**
 * Converts what MCP servers return (tool results, prompt messages, resource contents)
 * into weft's `ToolContent` union: text as is, images and audio kept, embedded resources
 * as their text when textual, resource links as a line of text.
 */
import type { CallToolResult, ContentBlock, ReadResourceResult } from '@modelcontextprotocol/client';
import type { ToolContent, ToolResult } from '../../tools/tool.js';

const TEXTUAL_MIME = /^(text\/|application\/(json|xml|yaml|x-yaml|javascript|typescript|toml|x-sh|sql|graphql)\b)|\+(json|xml|yaml)\b/i;

export function isTextualMime(mimeType: string | undefined): boolean {
  return mimeType !== undefined && TEXTUAL_MIME.test(mimeType);
}

interface ResourceBody {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A resource body as weft content: text when it has text (or a textual blob), else the blob. */
export function resourceContent(body: ResourceBody): ToolContent {
  const base = { type: 'resource' as const, uri: body.uri, ...(body.mimeType ? { mimeType: body.mimeType } : {}) };
  if (typeof body.text === 'string') return { ...base, text: body.text };
  if (typeof body.blob === 'string' && isTextualMime(body.mimeType)) {
    return { ...base, text: Buffer.from(body.blob, 'base64').toString('utf8') };
  }
  return typeof body.blob === 'string' ? { ...base, blob: body.blob } : base;
}

/** One MCP content block as weft content. Unknown kinds become a short placeholder. */
export function convertContentBlock(block: ContentBlock): ToolContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType };
    case 'audio':
      return { type: 'audio', data: block.data, mimeType: block.mimeType };
    case 'resource':
      return resourceContent(block.resource as ResourceBody);
    case 'resource_link': {
      const details = [block.mimeType, block.description].filter((part): part is string => typeof part === 'string' && part.length > 0);
      const title = block.title ?? block.name;
      return { type: 'text', text: `[resource link] ${title}: ${block.uri}${details.length ? ` (${details.join(' — ')})` : ''}` };
    }
    default: {
      const kind = (block as { type?: unknown }).type;
      return { type: 'text', text: `[${typeof kind === 'string' ? kind : 'unknown'} content]` };
    }
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { value };
}

/**
 * A `tools/call` result as a weft tool result. `structuredContent` is kept (wrapped as
 * `{ value }` when it is not an object); when a tool returns only structured content the
 * text the model sees is its JSON.
 */
export function convertToolResult(result: CallToolResult): ToolResult {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const content = blocks.map(convertContentBlock);
  const structured = asRecord(result.structuredContent);
  if (content.length === 0 && structured) content.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  return {
    content,
    isError: result.isError === true,
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/** `resources/read` contents as weft content, one part per body. */
export function convertResourceContents(result: ReadResourceResult): ToolContent[] {
  return result.contents.map((body) => resourceContent(body as ResourceBody));
}
