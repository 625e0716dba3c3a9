// Sign-In With Solana messages (Phantom's SIWS text format, the one the Solana wallet standard's
// `solana:signIn` signs), built and parsed here, and their ed25519 signatures checked with
// @noble/curves:
//
//   <domain> wants you to sign in with your Solana account:
//   <address>
//
//   <statement>
//
//   URI: <uri>
//   Version: 1
//   Chain ID: mainnet
//   Nonce: <nonce>
//   Issued At: <ISO-8601>
//   Expiration Time: <ISO-8601>
//
// The parser takes that form (statement and each field after Issued At optional, in that order,
// as the format has them) and nothing looser: a claim is accepted only for the exact text issued,
// so parsing only has to find the nonce, the domain and the URI reliably.
import bs58 from 'bs58';
import { ed25519 } from '@noble/curves/ed25519.js';
import { solanaAddressPattern } from '../../pipeline/address.ts';

export interface SiwsMessage {
  domain: string;
  address: string;
  statement?: string;
  uri: string;
  version: '1';
  chainId: string;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

const header = ' wants you to sign in with your Solana account:';
const fieldOrder = [
  ['uri', 'URI'],
  ['version', 'Version'],
  ['chainId', 'Chain ID'],
  ['nonce', 'Nonce'],
  ['issuedAt', 'Issued At'],
  ['expirationTime', 'Expiration Time'],
  ['notBefore', 'Not Before'],
  ['requestId', 'Request ID'],
] as const;
const required = new Set(['uri', 'version', 'chainId', 'nonce', 'issuedAt']);

export function createSiwsMessage(m: SiwsMessage): string {
  if (m.statement?.includes('\n')) throw new Error('a SIWS statement is one line');
  let text = `${m.domain}${header}\n${m.address}`;
  if (m.statement) text += `\n\n${m.statement}`;
  const fields: string[] = [];
  for (const [key, label] of fieldOrder) if (m[key] !== undefined) fields.push(`${label}: ${m[key]}`);
  if (m.resources) fields.push('Resources:', ...m.resources.map((r) => `- ${r}`));
  return `${text}\n\n${fields.join('\n')}`;
}

/** The message's fields, or null when the text is not a SIWS message of the form above. */
export function parseSiwsMessage(text: string): SiwsMessage | null {
  const lines = text.split('\n');
  const first = lines[0] ?? '';
  if (!first.endsWith(header)) return null;
  const domain = first.slice(0, -header.length);
  const address = lines[1] ?? '';
  if (domain === '' || /\s/.test(domain) || !solanaAddressPattern.test(address) || lines[2] !== '') return null;
  let next = 3;
  let statement: string | undefined;
  if (lines[next] !== undefined && !lines[next]!.startsWith('URI: ')) {
    statement = lines[next]!;
    if (statement === '' || lines[next + 1] !== '') return null;
    next += 2;
  }
  const fields: Record<string, string> = {};
  let order = 0;
  for (; next < lines.length; next++) {
    const line = lines[next]!;
    if (line === 'Resources:') break;
    const at = fieldOrder.findIndex(([, label], i) => i >= order && line.startsWith(`${label}: `));
    if (at < 0) return null;
    const [key, label] = fieldOrder[at]!;
    fields[key] = line.slice(label.length + 2);
    order = at + 1;
  }
  let resources: string[] | undefined;
  if (lines[next] === 'Resources:') {
    resources = lines.slice(next + 1).map((line) => (line.startsWith('- ') ? line.slice(2) : ''));
    if (resources.some((r) => r === '')) return null;
  }
  if ([...required].some((key) => !fields[key]) || fields.version !== '1') return null;
  return {
    domain,
    address,
    ...(statement === undefined ? {} : { statement }),
    uri: fields.uri!,
    version: '1',
    chainId: fields.chainId!,
    nonce: fields.nonce!,
    issuedAt: fields.issuedAt!,
    ...(fields.expirationTime === undefined ? {} : { expirationTime: fields.expirationTime }),
    ...(fields.notBefore === undefined ? {} : { notBefore: fields.notBefore }),
    ...(fields.requestId === undefined ? {} : { requestId: fields.requestId }),
    ...(resources === undefined ? {} : { resources }),
  };
}

/**
 * Whether `address` can sign at all: the base58 of an ed25519 public key that is a canonical curve
 * point of large order. An address off the curve (a program-derived address) has no private key;
 * a small-order one (the all-zero system program among them) would accept forged signatures
 * under lenient verification, so neither is ever claimable.
 */
export function isSigningKey(address: string): boolean {
  try {
    const bytes = bs58.decode(address);
    return bytes.length === 32 && !ed25519.Point.fromBytes(bytes, false).isSmallOrder();
  } catch {
    return false;
  }
}

/** A Solana signature as the claim takes it: the base58 of its 64 bytes; null otherwise. */
export function decodeSolanaSignature(text: string): Uint8Array | null {
  if (!/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(text)) return null;
  const bytes = bs58.decode(text);
  return bytes.length === 64 ? bytes : null;
}

/**
 * RFC 8032 verification (zip215 off: canonical encodings only, small-order keys refused) of a
 * signature over the message's UTF-8 bytes by the address's key.
 */
export function verifySolanaSignature(message: string, signature: Uint8Array, address: string): boolean {
  try {
    return ed25519.verify(signature, new TextEncoder().encode(message), bs58.decode(address), { zip215: false });
  } catch {
    return false;
  }
}
