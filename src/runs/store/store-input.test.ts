// Input checks shared by every RunStore: cursors, filters, parent cycles.
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../core/errors.js';
import { checkParentLink, decodeCursor, encodeCursor, normalizeFilter } from './store-input.js';

const A = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BA';
const B = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BB';
const C = '01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC';

describe('store input', () => {
  it('round-trips a cursor and refuses a forged one', () => {
    expect(decodeCursor(encodeCursor({ createdAt: 1735689600000, id: A }))).toEqual({ createdAt: 1735689600000, id: A });
    const forged = Buffer.from('1.../../etc/passwd').toString('base64url');
    expect(() => decodeCursor(forged)).toThrow(WeftError);
  });

  it('normalises a filter: defaults, capped limit, deduplicated statuses', () => {
    expect(normalizeFilter({ status: ['failed', 'failed'], limit: 9999, labels: { team: 'core' } })).toEqual({
      labels: [['team', 'core']],
      status: ['failed'],
      archived: false,
      limit: 500,
    });
    expect(normalizeFilter()).toEqual({ labels: [], archived: false, limit: 50 });
  });

  it('walks ancestors to refuse cycles', () => {
    const parents = new Map<string, string | null>([
      [A, null],
      [B, A],
      [C, B],
    ]);
    const parentOf = (id: string) => parents.get(id);
    expect(() => checkParentLink(A, C, parentOf)).toThrow(`Run ${C} descends from run ${A}`);
    expect(() => checkParentLink(C, A, parentOf)).not.toThrow();
    parents.set(A, C);
    expect(() => checkParentLink('01JD3Q7Y8ZK3V4W5X6Y7Z8A9BE', A, parentOf)).not.toThrow();
  });
});
