import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BatchedWriter, type LineSink } from './batched-writer.js';

class FakeSink extends EventEmitter implements LineSink {
  writable = true;
  writableNeedDrain = false;
  readonly writes: string[] = [];

  write(data: string): boolean {
    this.writes.push(data);
    return !this.writableNeedDrain;
  }
}

/** Resolves after the ticks queued so far, the writer's flush among them. */
const afterTicks = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('BatchedWriter', () => {
  it('sends what one turn queued as one write, in order, and starts a new batch after it', async () => {
    const sink = new FakeSink();
    const writer = new BatchedWriter(sink);
    await Promise.all([writer.write('a\n'), writer.write('b\n'), writer.write('c\n')]);
    expect(sink.writes).toEqual([]);
    await afterTicks();
    expect(sink.writes).toEqual(['a\nb\nc\n']);
    void writer.write('d\n');
    await afterTicks();
    expect(sink.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('holds senders back while the sink is backed up, until it drains', async () => {
    const sink = new FakeSink();
    const writer = new BatchedWriter(sink);
    sink.writableNeedDrain = true;
    let sent = false;
    const waiting = writer.write('big\n').then(() => (sent = true));
    await afterTicks();
    expect(sink.writes).toEqual(['big\n']);
    expect(sent).toBe(false);
    sink.writableNeedDrain = false;
    sink.emit('drain');
    await waiting;
    expect(sent).toBe(true);
  });

  it('writes the queue at once on flush (before a close), and nothing twice', async () => {
    const sink = new FakeSink();
    const writer = new BatchedWriter(sink);
    void writer.write('last\n');
    writer.flush();
    expect(sink.writes).toEqual(['last\n']);
    await afterTicks();
    expect(sink.writes).toEqual(['last\n']);
  });

  it('drops what is queued when the sink stopped being writable (the server is gone)', async () => {
    const sink = new FakeSink();
    const writer = new BatchedWriter(sink);
    void writer.write('lost\n');
    sink.writable = false;
    await afterTicks();
    expect(sink.writes).toEqual([]);
  });
});
