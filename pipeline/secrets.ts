// Secrets (API keys, admin token, poll secrets, operator tokens) and ids, shared by every layer.
// Secrets are random, shown once, stored as SHA-256 and compared by hash in constant time; ids are
// prefixed and roughly time-sortable.
import { createHash, hash, randomFillSync, timingSafeEqual } from 'node:crypto';

const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
// Bytes at or past this (the largest multiple of 57 under 256) are skipped so `byte % 57` stays uniform.
const unbiasedBelow = 256 - (256 % alphabet.length);

// Random bytes drawn from the CSPRNG 4 KiB at a time: every request takes a 12-character id, and
// one randomFillSync per request (or one randomInt per character) cost more than the rest of it.
const pool = Buffer.alloc(4096);
let poolNext = pool.length;

function randomByte(): number {
  if (poolNext === pool.length) {
    randomFillSync(pool);
    poolNext = 0;
  }
  return pool[poolNext++]!;
}

function randomChars(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < unbiasedBelow) out += alphabet[byte % alphabet.length];
  }
  return out;
}

/** A secret of `prefix` + 32 characters from a 57-letter alphabet (≈186 bits). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomChars(32)}`;
}

export function sha256Hex(text: string): string {
  // The one-shot form: a Hash object per call was a visible share of every authenticated request.
  return hash('sha256', text, 'hex');
}

/** Constant-time equality of two secrets (compares their hashes, so lengths may differ). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** `acc_` + 10 chars of millisecond time + 12 random chars: sorts by creation time. */
export function newId(prefix: string): string {
  return `${prefix}${Date.now().toString(36).padStart(10, '0')}${randomChars(12)}`;
}
