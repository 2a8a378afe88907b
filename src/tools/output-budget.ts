/**
 * The output budget: the model sees at most `limitBytes` of a result's text; the full text
 * is kept as an artifact and the capped text says where and how much was cut.
 */
import type { ArtifactSink } from './artifact-sink.js';
import type { ToolContent, ToolResult } from './tool.js';

export const DEFAULT_OUTPUT_LIMIT_BYTES = 100 * 1024;

function textBytes(content: readonly ToolContent[]): number {
  let total = 0;
  for (const part of content) if (part.type === 'text') total += Buffer.byteLength(part.text);
  return total;
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Every character takes at least one byte: only the first `maxBytes` can matter, and a
  // huge text is not encoded whole just to keep its start.
  const head = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  const buffer = Buffer.from(head);
  if (buffer.length <= maxBytes && head.length === text.length) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString('utf8');
}

function formatKiB(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Whether the model may see all of `result`'s text (the common case, decided without a promise). */
export function fitsOutputBudget(result: ToolResult, limitBytes: number): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes: short texts need no encoding pass.
  let units = 0;
  for (const part of result.content) if (part.type === 'text') units += part.text.length;
  return units * 3 <= limitBytes || textBytes(result.content) <= limitBytes;
}

export async function applyOutputBudget(
  result: ToolResult,
  toolName: string,
  limitBytes: number,
  artifacts: ArtifactSink,
): Promise<ToolResult> {
  const total = textBytes(result.content);
  if (total <= limitBytes) return result;

  // The parts go to the artifact as they are: joining them would copy the whole result once more.
  const artifactPath = await artifacts.save(
    toolName,
    result.content.map((part) => (part.type === 'text' ? part.text : '')),
  );
  let remaining = limitBytes;
  const content: ToolContent[] = [];
  for (const part of result.content) {
    if (part.type !== 'text') {
      content.push(part);
      continue;
    }
    if (remaining <= 0) continue;
    const kept = truncateUtf8(part.text, remaining);
    remaining -= Buffer.byteLength(kept);
    content.push({ type: 'text', text: kept });
  }
  const shown = limitBytes - remaining;
  content.push({
    type: 'text',
    text: `\n[output truncated: showing ${formatKiB(shown)} of ${formatKiB(total)}; ${formatKiB(total - shown)} cut. Full output saved to ${artifactPath}]`,
  });
  return { ...result, content, artifactPath };
}
