import { describe, expect, it } from 'vitest';
import { parseRunResource } from './resource-uri.js';

const ID = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC';

describe('parseRunResource', () => {
  it('reads the three weft:// resources', () => {
    expect(parseRunResource('weft://runs')).toEqual({ kind: 'runs' });
    expect(parseRunResource(`weft://runs/${ID}`)).toEqual({ kind: 'run', runId: ID });
    expect(parseRunResource(`weft://runs/${ID}/events`)).toEqual({ kind: 'events', runId: ID });
  });

  it('does not serve other URIs, and refuses run ids that are not ULIDs (encoded traversal included)', () => {
    expect(parseRunResource('file:///etc/passwd')).toBeUndefined();
    expect(parseRunResource(`weft://runs/${ID}/secrets`)).toBeUndefined();
    expect(() => parseRunResource('weft://runs/..%2F..%2Fetc')).toThrow(/Invalid run id '..\/..\/etc'/);
    expect(() => parseRunResource('weft://runs/%E0%A4%A')).toThrow(/expected a 26-character ULID/);
  });
});
