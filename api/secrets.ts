// Secrets (API keys, admin token) and ids. Secrets are random, shown once, stored as SHA-256 and
// compared by hash in constant time; ids are prefixed and roughly time-sortable.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function randomChars(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A secret of `prefix` + 32 characters from a 57-letter alphabet (≈186 bits). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomChars(32)}`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Constant-time equality of two secrets (compares their hashes, so lengths may differ). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** `acc_` + 10 chars of millisecond time + 12 random chars: sorts by creation time. */
export function newId(prefix: string): string {
  return `${prefix}${Date.now().toString(36).padStart(10, '0')}${randomChars(12)}`;
}
