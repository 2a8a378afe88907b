import { describe, expect, it } from 'vitest';
import { newId } from '../../../core/ids.js';
import { decodeNotice, encodeNotice, PAYLOAD_LIMIT } from './notice-payload.js';

describe('PostgreSQL notice payloads', () => {
  const source = newId();
  const [a, b] = [newId(), newId()];

  it('carries the runs written, their heads and statuses, and whether one may be claimable', () => {
    const change = { kind: 'runs', runs: [{ id: a, headSeq: 12, status: 'running' }, { id: b }], claimable: true } as const;
    expect(decodeNotice(encodeNotice(source, change))).toEqual({ source, change });
    expect(decodeNotice(encodeNotice(source, { kind: 'unknown' }))).toEqual({ source, change: { kind: 'unknown' } });
  });

  it('says unknown when the runs would not fit in a payload', () => {
    const runs = Array.from({ length: 300 }, () => ({ id: newId(), headSeq: 123_456, status: 'succeeded' as const }));
    const text = encodeNotice(source, { kind: 'runs', runs, claimable: false });
    expect(text.length).toBeLessThanOrEqual(PAYLOAD_LIMIT);
    expect(decodeNotice(text).change).toEqual({ kind: 'unknown' });
  });

  it('reads an empty payload (an older weft) or a malformed one as unknown', () => {
    for (const payload of [
      '',
      undefined,
      `${source} runs 1 not-an-id:3:`,
      `${source} runs 0 ${a}:x:`,
      `${source} runs 0 ${a}:1:sleeping`,
      `${source} runs 2 ${a}`,
    ]) {
      expect(decodeNotice(payload).change).toEqual({ kind: 'unknown' });
    }
  });
});
