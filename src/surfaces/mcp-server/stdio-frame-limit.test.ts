// The stdio frame bound: lines under it pass through untouched (also when split across chunks), a line over it is
// dropped and answered with TOO_LARGE under the id read from its head or tail, and the lines after it still pass.
import { describe, expect, it } from 'vitest';
import { requestIdOf, StdioFrameLimit, type OversizedAnswer } from './stdio-frame-limit.js';

async function through(limit: number, chunks: string[]): Promise<{ out: string; answers: OversizedAnswer[] }> {
  const answers: OversizedAnswer[] = [];
  const stream = new StdioFrameLimit(limit, (answer) => answers.push(answer));
  const out: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => stream.once('end', resolve));
  for (const chunk of chunks) stream.write(Buffer.from(chunk));
  stream.end();
  await ended;
  return { out: Buffer.concat(out).toString(), answers };
}

describe('StdioFrameLimit', () => {
  it('passes lines under the bound through unchanged, across chunk boundaries', async () => {
    const { out, answers } = await through(64, ['{"id":1}\n{"id"', ':2}\n', '{"id":3}\n']);
    expect(out).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    expect(answers).toEqual([]);
  });

  it('drops a line over the bound, answers it by its id, and goes on with the next line', async () => {
    const big = `{"method":"tools/call","params":{"text":"${'x'.repeat(300)}"},"jsonrpc":"2.0","id":"abc"}`;
    const { out, answers } = await through(100, ['{"id":1}\n', big.slice(0, 150), big.slice(150), '\n{"id":2}\n']);
    // What was passed of the big line is ended by a newline: an unparseable line the SDK skips.
    const lines = out.split('\n');
    expect(lines[0]).toBe('{"id":1}');
    expect(lines[1]!.length).toBeLessThanOrEqual(150);
    expect(lines.slice(2)).toEqual(['{"id":2}', '']);
    expect(answers).toEqual([
      {
        jsonrpc: '2.0',
        id: 'abc',
        error: {
          code: -32600,
          message: expect.stringMatching(/^Request larger than 100 bytes/),
          data: { code: 'TOO_LARGE', limit_bytes: 100 },
        },
      },
    ]);
  });

  it('reads the id from the head or the tail of a line, never from inside its params', () => {
    expect(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"x"', '')).toBe(7);
    expect(requestIdOf('{"method":"x","params":{"id":9', 'xxx"},"jsonrpc":"2.0","id":"r-1"}')).toBe('r-1');
    expect(requestIdOf('{"method":"x","params":{"id":9', 'xxx"}}')).toBeNull();
    expect(requestIdOf('{"id":1.5,', '')).toBeNull();
  });
});
