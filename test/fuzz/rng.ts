/**
 * The fuzzer's only source of randomness: a seeded PRNG (mulberry32), so a seed names a
 * corpus exactly and any failure is replayed by running the same seed again.
 */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** A short string from a hostile alphabet: quotes, path parts, control and non-ASCII characters. */
  string(maxLength = 12): string {
    const alphabet = [
      'a',
      'Z',
      '0',
      '9',
      '-',
      '_',
      '.',
      '/',
      '\\',
      '"',
      "'",
      '@',
      '%',
      '\u0000',
      '\n',
      '\u00e9',
      '\u{1f600}',
      '\ud800',
      ' ',
      '{',
      '$',
      '..',
    ];
    let text = '';
    const length = this.int(0, maxLength);
    for (let i = 0; i < length; i++) text += this.pick(alphabet);
    return text;
  }
}

/** The seed from `WEFT_FUZZ_SEED` when set (so a failing seed can be replayed), else `fallback`. */
export function seedFromEnv(fallback: number): number {
  const raw = process.env.WEFT_FUZZ_SEED;
  if (raw === undefined || raw === '') return fallback;
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new Error(`WEFT_FUZZ_SEED must be an integer from 0 to 4294967295, got '${raw}'.`);
  return seed;
}
