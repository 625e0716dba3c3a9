// A small seeded pseudo-random generator (sfc32) for simulations that must replay exactly:
// the same seed gives the same sequence on every run and every platform, which Math.random cannot.
import { createHash } from 'node:crypto';

export class Prng {
  readonly #state: Uint32Array;

  /** `seed` and `label` are hashed together, so differently labelled streams are independent. */
  constructor(seed: string, label = '') {
    const digest = createHash('sha256').update(`${seed}\u0000${label}`).digest();
    this.#state = new Uint32Array([digest.readUInt32LE(0), digest.readUInt32LE(4), digest.readUInt32LE(8), digest.readUInt32LE(12)]);
    // Discard the first outputs, which still resemble the seed.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const s = this.#state;
    const t = (((s[0]! + s[1]!) >>> 0) + s[3]!) >>> 0;
    s[3] = (s[3]! + 1) >>> 0;
    s[0] = s[1]! ^ (s[1]! >>> 9);
    s[1] = (s[2]! + (s[2]! << 3)) >>> 0;
    s[2] = ((s[2]! << 21) | (s[2]! >>> 11)) >>> 0;
    s[2] = (s[2]! + t) >>> 0;
    return t / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** A new array in random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /**
   * An index in [0, n) where low indexes are much likelier (Zipf-like, weight 1/(i+1)^exponent):
   * a few popular agents and heavy buyers, a long tail of occasional ones.
   */
  skewed(n: number, exponent = 1): number {
    let total = 0;
    for (let i = 0; i < n; i++) total += 1 / (i + 1) ** exponent;
    let target = this.next() * total;
    for (let i = 0; i < n; i++) {
      target -= 1 / (i + 1) ** exponent;
      if (target < 0) return i;
    }
    return n - 1;
  }
}
