import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../shared/input-issues.js';

const run = z.object({ workflow: z.string(), dry_run: z.boolean().optional() }).strict();
const input = z.object({ runs: z.array(z.union([z.string().min(1), run])).max(2), action: z.enum(['a', 'b']).optional() }).strict();

describe('describeIssues', () => {
  it('names the path of every problem and looks inside the union branch the value was meant for', () => {
    const parsed = input.safeParse({ runs: [{ workflow: 'x', dry_run: 'yes' }, 5], action: 'c', extra: 1 });
    expect(parsed.success).toBe(false);
    expect(describeIssues(parsed.error!).split('; ')).toEqual([
      'runs.0.dry_run: Invalid input: expected boolean, received string',
      'runs.1: Invalid input: expected string or object',
      'action: Invalid option: expected one of "a"|"b"',
      'arguments: Unrecognized key: "extra"',
    ]);
  });
});
