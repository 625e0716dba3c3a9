// Verifies a signed response of the reputation API (enterprise plans). Self-contained: it needs
// only node:crypto, so integrators may copy this file as it is.
//
//   const res = await fetch(url, { headers: { 'X-API-Key': key } });
//   const body = new Uint8Array(await res.arrayBuffer());         // the raw bytes, not re-serialised JSON
//   const jwks = await (await fetch(`${base}/.well-known/reputation-signing-key`)).json();
//   const result = verifySignature(body, res.headers, jwks);       // { valid: true, keyId, timestamp } or { valid: false, reason }
//
// The signature (X-Signature, base64 Ed25519) covers `${X-Signature-Timestamp}.` followed by the
// body bytes. A timestamp further than maxAgeSeconds (default 300) from now is refused as a replay.
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

export type SignatureHeaders = Headers | Record<string, string | string[] | undefined>;

/** A KeyObject, a PEM (SPKI) public key, a JWK, or the JWK set served at the well-known path. */
export type SigningPublicKey = KeyObject | string | JsonWebKey | { keys: JsonWebKey[] };

export interface VerifyOptions {
  /** Largest accepted distance between the signature timestamp and now, in seconds (default 300). */
  maxAgeSeconds?: number;
  /** "Now" for the age check (default: the current time). */
  now?: Date | number;
}

export type VerifyFailure = 'missing_headers' | 'malformed_timestamp' | 'timestamp_out_of_range' | 'unknown_key' | 'bad_signature';

export type VerifyResult = { valid: true; keyId: string | null; timestamp: number } | { valid: false; reason: VerifyFailure };

export function verifySignature(
  body: string | Uint8Array,
  headers: SignatureHeaders,
  publicKey: SigningPublicKey,
  options: VerifyOptions = {},
): VerifyResult {
  const signature = header(headers, 'x-signature');
  const timestampText = header(headers, 'x-signature-timestamp');
  const keyId = header(headers, 'x-signature-key-id') ?? null;
  if (!signature || !timestampText) return { valid: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestampText)) return { valid: false, reason: 'malformed_timestamp' };
  const timestamp = Number(timestampText);
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  if (Math.abs(nowMs / 1000 - timestamp) > (options.maxAgeSeconds ?? 300)) return { valid: false, reason: 'timestamp_out_of_range' };

  const key = resolveKey(publicKey, keyId);
  if (!key) return { valid: false, reason: 'unknown_key' };
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const message = Buffer.concat([Buffer.from(`${timestampText}.`, 'utf8'), bytes]);
  let ok = false;
  try {
    ok = verify(null, message, key, Buffer.from(signature, 'base64'));
  } catch {
    ok = false;
  }
  return ok ? { valid: true, keyId, timestamp } : { valid: false, reason: 'bad_signature' };
}

function header(headers: SignatureHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function resolveKey(publicKey: SigningPublicKey, keyId: string | null): KeyObject | null {
  try {
    if (typeof publicKey === 'string') return ed25519(createPublicKey(publicKey));
    if (isKeyObject(publicKey)) return ed25519(publicKey.type === 'private' ? createPublicKey(publicKey) : publicKey);
    if ('keys' in publicKey && Array.isArray(publicKey.keys)) {
      const jwk = publicKey.keys.find((k) => keyId === null || k.kid === keyId);
      return jwk ? ed25519(createPublicKey({ key: jwk, format: 'jwk' })) : null;
    }
    const jwk = publicKey as JsonWebKey;
    if (keyId !== null && typeof jwk.kid === 'string' && jwk.kid !== keyId) return null;
    return ed25519(createPublicKey({ key: jwk, format: 'jwk' }));
  } catch {
    return null;
  }
}

function isKeyObject(value: unknown): value is KeyObject {
  return typeof (value as KeyObject).asymmetricKeyType === 'string' && typeof (value as KeyObject).export === 'function';
}

function ed25519(key: KeyObject): KeyObject | null {
  return key.asymmetricKeyType === 'ed25519' ? key : null;
}
