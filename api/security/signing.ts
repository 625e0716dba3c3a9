// Signed responses (spec section 8, enterprise plans). Every response to an enterprise key,
// success or error, carries an Ed25519 signature over `${X-Signature-Timestamp}.` followed by the
// exact body bytes sent:
//
//   X-Signature:           base64 Ed25519 signature (64 bytes)
//   X-Signature-Timestamp: Unix seconds when the response was signed
//   X-Signature-Key-Id:    RFC 7638 JWK thumbprint of the signing public key
//
// The key pair is made on the first start and kept in DATA_DIR/signing-key.pem (PKCS#8, mode
// 0600); the private key is never logged or served. The public key is served without a key at
// GET /.well-known/reputation-signing-key. Integrators verify with api/security/verify-signature.ts.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Logger } from '../../pipeline/log.ts';
import { readOrCreateSecretFile } from '../../pipeline/secret-file.ts';
import { hasEntitlement, type PlanName } from '../plans.ts';

export const signingKeyFileName = 'signing-key.pem';
export const signingKeyPath = '/.well-known/reputation-signing-key';
export const signatureHeaders = {
  signature: 'X-Signature',
  timestamp: 'X-Signature-Timestamp',
  keyId: 'X-Signature-Key-Id',
} as const;

export interface PublicSigningKey {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface ResponseSigner {
  readonly keyId: string;
  readonly publicJwk: PublicSigningKey;
  readonly publicKeyPem: string;
  /** base64 signature of `${timestamp}.` + body. */
  sign(body: Uint8Array, timestamp: number): string;
}

/** Plans whose responses are signed (the signed_responses entitlement of api/plans.ts). */
export function planSignsResponses(plan: PlanName): boolean {
  return hasEntitlement(plan, 'signed_responses');
}

/** The message a signature covers: the timestamp in decimal, a dot, then the body bytes. */
export function signedMessage(timestamp: number | string, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body]);
}

export function createResponseSigner(privateKey: KeyObject): ResponseSigner {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the signing key must be an Ed25519 private key');
  const publicKey = createPublicKey(privateKey);
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  // RFC 7638: SHA-256 over the required members in lexicographic order, base64url.
  const kid = createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
  return {
    keyId: kid,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' },
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    sign: (body, timestamp) => sign(null, signedMessage(timestamp, body), privateKey).toString('base64'),
  };
}

/**
 * Reads DATA_DIR/signing-key.pem, or makes a new key pair there (pipeline/secret-file.ts: 0600,
 * fsynced, renamed into place). A key file readable by others is tightened to 0600.
 */
export function loadOrCreateSigningKey(dataDir: string, log: Logger): ResponseSigner {
  const file = path.join(dataDir, signingKeyFileName);
  const makePem = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const { text, created } = readOrCreateSecretFile(file, makePem, log, 'response signing key');
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new Error(`${file} is not a PEM private key: restore it from a backup, or remove it to make a new signing key (clients must then fetch the new public key)`);
  }
  const signer = createResponseSigner(key);
  if (created) log.info('made a new response signing key', { keyId: signer.keyId, file });
  return signer;
}

/** GET /.well-known/reputation-signing-key: the public key as a JWK set plus PEM, no API key needed. */
export function signingKeyRoutes(router: Router, signer: ResponseSigner): void {
  router.get(signingKeyPath, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = {
      keys: [signer.publicJwk],
      key_id: signer.keyId,
      algorithm: 'Ed25519',
      public_key_pem: signer.publicKeyPem,
      headers: { signature: signatureHeaders.signature, timestamp: signatureHeaders.timestamp, key_id: signatureHeaders.keyId },
      signed_message: 'the X-Signature-Timestamp value, a dot, then the exact response body bytes',
    };
  });
}

interface SignState {
  account?: { plan: PlanName };
  requestId?: string;
}

/** The key index (api/accounts.ts), for requests no route matched, whose key nothing checked. */
export interface KeyPlans {
  verify(key: string | undefined): { valid: true; owner: { plan: PlanName; status: string } } | { valid: false };
}

/**
 * Signs the response of every request whose API key belongs to a plan with signed responses.
 * Registered right after the request id, outside the error renderer, so errors are signed too:
 * the body (object, string, Buffer or stream) is serialised once into the Buffer that is sent.
 * Nothing registered before it may change the body afterwards.
 */
export function signResponses(signer: ResponseSigner, log: Logger, keys?: KeyPlans, clock: () => number = Date.now): Middleware<SignState> {
  const planOfKey = (key: string): PlanName | undefined => {
    const found = keys?.verify(key || undefined);
    return found?.valid && found.owner.status === 'active' ? found.owner.plan : undefined;
  };
  return async (ctx, next) => {
    await next();
    const plan = ctx.state.account?.plan ?? planOfKey(ctx.get('X-API-Key'));
    if (!plan || !planSignsResponses(plan)) return;
    try {
      const status = ctx.status;
      if (emptyStatuses.has(status)) {
        // No body is ever sent: the signature covers the empty body.
        ctx.set(signatureHeader(signer, new Uint8Array(0), clock));
        return;
      }
      // A missing body would make Koa send the status text: make that explicit, then sign it.
      if (ctx.body === null || ctx.body === undefined) ctx.type = 'text';
      const bytes = (await bodyBytes(ctx.body)) ?? Buffer.from(ctx.message || String(status), 'utf8');
      ctx.body = bytes;
      ctx.status = status;
      ctx.set(signatureHeader(signer, bytes, clock));
    } catch (err) {
      log.error('signing a response failed', { requestId: ctx.state.requestId, error: String((err as Error)?.stack ?? err) });
      ctx.status = 500;
      ctx.type = 'json';
      ctx.body = { error: { code: 'internal_error', message: 'the response could not be signed; retry later or contact support with the X-Request-Id' } };
    }
  };
}

const emptyStatuses = new Set([204, 205, 304]);

/** The signature headers of `bytes` (also the assess hot path's: api/routes/hot-assess.ts). */
export function signatureHeader(signer: ResponseSigner, bytes: Uint8Array, clock: () => number = Date.now): Record<string, string> {
  const timestamp = Math.floor(clock() / 1000);
  return {
    [signatureHeaders.signature]: signer.sign(bytes, timestamp),
    [signatureHeaders.timestamp]: String(timestamp),
    [signatureHeaders.keyId]: signer.keyId,
  };
}

/** The bytes Koa would send for `body`, or null when it sends none. */
async function bodyBytes(body: unknown): Promise<Buffer | null> {
  if (body === null || body === undefined) return null;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Readable) {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
    return Buffer.concat(chunks);
  }
  if (body instanceof Blob || body instanceof ReadableStream || body instanceof Response) {
    return Buffer.from(await new Response(body instanceof Response ? body.body : body).arrayBuffer());
  }
  // What Koa's respond() does with any other value; the json Content-Type stays as it was set.
  return Buffer.from(JSON.stringify(body), 'utf8');
}
