/** Unit tests of MCP content → weft ToolContent conversion. */
import { describe, expect, it } from 'vitest';
import { resultText } from '../../tools/tool.js';
import { convertContentBlock, convertResourceContents, convertToolResult, isTextualMime } from './content.js';

describe('convertToolResult', () => {
  it('keeps text, images and audio, and marks isError results as errors', () => {
    const result = convertToolResult({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
      ],
      isError: true,
    });
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
      ],
      isError: true,
    });
    expect(resultText(result)).toBe('hello\n[image content]\n[audio content]');
  });

  it('turns embedded resources into their text when textual, else keeps the blob', () => {
    const result = convertToolResult({
      content: [
        { type: 'resource', resource: { uri: 'mem://a.txt', mimeType: 'text/plain', text: 'note' } },
        {
          type: 'resource',
          resource: { uri: 'mem://b.json', mimeType: 'application/json', blob: Buffer.from('{"a":1}').toString('base64') },
        },
        { type: 'resource', resource: { uri: 'mem://c.bin', mimeType: 'application/octet-stream', blob: 'AAEC' } },
      ],
    });
    expect(result.content).toEqual([
      { type: 'resource', uri: 'mem://a.txt', mimeType: 'text/plain', text: 'note' },
      { type: 'resource', uri: 'mem://b.json', mimeType: 'application/json', text: '{"a":1}' },
      { type: 'resource', uri: 'mem://c.bin', mimeType: 'application/octet-stream', blob: 'AAEC' },
    ]);
    expect(resultText(result)).toBe('note\n{"a":1}\n[resource content]');
  });

  it('turns a resource link into a line of text', () => {
    expect(
      convertContentBlock({ type: 'resource_link', uri: 'file:///x.md', name: 'x.md', mimeType: 'text/markdown', description: 'the x' }),
    ).toEqual({
      type: 'text',
      text: '[resource link] x.md: file:///x.md (text/markdown — the x)',
    });
  });

  it('keeps structuredContent, and shows it as JSON when there is no other content', () => {
    expect(convertToolResult({ content: [{ type: 'text', text: '42' }], structuredContent: { answer: 42 } })).toEqual({
      content: [{ type: 'text', text: '42' }],
      isError: false,
      structuredContent: { answer: 42 },
    });
    expect(convertToolResult({ content: [], structuredContent: { answer: 42 } }).content).toEqual([
      { type: 'text', text: '{"answer":42}' },
    ]);
  });

  it('names unknown content kinds instead of failing', () => {
    const block = { type: 'hologram', data: 'x' } as unknown as Parameters<typeof convertContentBlock>[0];
    expect(convertContentBlock(block)).toEqual({ type: 'text', text: '[hologram content]' });
  });
});

describe('convertResourceContents', () => {
  it('converts each body', () => {
    expect(convertResourceContents({ contents: [{ uri: 'a://1', text: 'one' }] })).toEqual([
      { type: 'resource', uri: 'a://1', text: 'one' },
    ]);
  });
});

describe('isTextualMime', () => {
  it('recognises text-like types', () => {
    for (const type of ['text/plain', 'application/json', 'application/ld+json', 'image/svg+xml']) expect(isTextualMime(type)).toBe(true);
    for (const type of ['image/png', 'application/octet-stream', undefined]) expect(isTextualMime(type)).toBe(false);
  });
});
