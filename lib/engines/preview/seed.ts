// Reproducible randomness: the same job must always paint the same picture, byte for byte.

export type Rng = {
  /** Uniform in [0, 1). */
  next(): number;
  between(min: number, max: number): number;
  /** Integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
};

// FNV-1a over UTF-8 bytes: tiny and stable across platforms; we need spread, not secrecy.
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

// Callers get this back as the seed that reproduces the image, so keep it in the 31-bit range most APIs accept.
export function deriveSeed(prompt: string): number {
  return hashString(prompt) & 0x7fffffff;
}

// mulberry32: one 32-bit word of state is plenty for a few thousand draws per picture.
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (min, max) => min + (max - min) * next(),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (probability) => next() < probability,
  };
}
