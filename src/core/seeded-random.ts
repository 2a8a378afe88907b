/**
 * A seeded random source for generated test data and fuzz cases: the same seed gives the
 * same sequence, so a failing case or a benchmark's data set can be made again.
 */

/** Returns numbers in [0, 1), like `Math.random`. */
export type Random = () => number;

/**
 * mulberry32: small, fast and spread well enough for data and cases; never for secrets.
 * @example const random = mulberry32(42); random(); // 0.6011…
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
