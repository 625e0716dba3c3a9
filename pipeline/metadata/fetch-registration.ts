// Resolves an agentURI to its registration file: https/http, ipfs:// through a gateway, data:
// URIs, or the JSON itself written on-chain as the URI. Every outcome is a value; nothing throws.
import { createHash } from 'node:crypto';
import { decodeDataUri } from './data-uri.ts';
import { failure, fetchDefaults, safeGet, type FetchFailure, type FetchOptions } from './safe-get.ts';

export type RegistrationKind = 'https' | 'http' | 'ipfs' | 'data' | 'json';

export interface FetchedRegistration {
  ok: true;
  kind: RegistrationKind;
  /** The parsed JSON document (any JSON value; parseRegistration decides what it is worth). */
  body: unknown;
  /** Hex SHA-256 of the document's bytes as served or decoded. */
  sha256: string;
}

export type FetchRegistrationResult = FetchedRegistration | FetchFailure;

export async function fetchRegistrationFile(uri: string, options: FetchOptions = {}): Promise<FetchRegistrationResult> {
  const maxBytes = options.maxBytes ?? fetchDefaults.maxBytes;
  const trimmed = uri.trim();
  if (trimmed.startsWith('{')) return toDocument('json', Buffer.from(trimmed, 'utf8'), maxBytes);

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'data': {
      const bytes = decodeDataUri(trimmed);
      return bytes ? toDocument('data', bytes, maxBytes) : failure('unsupported_uri', 'malformed data: URI (no comma)');
    }
    case 'ipfs': {
      const url = ipfsGatewayUrl(trimmed, options.ipfsGateway ?? fetchDefaults.ipfsGateway);
      return url ? fromHttp('ipfs', url, options) : failure('unsupported_uri', `malformed ipfs URI: ${trimmed.slice(0, 200)}`);
    }
    case 'http':
    case 'https':
      return fromHttp(scheme, trimmed, options);
    default:
      return failure('unsupported_uri', trimmed === '' ? 'empty agentURI' : `unsupported agentURI: ${trimmed.slice(0, 200)}`);
  }
}

/** `ipfs://CID[/path]` (also the common `ipfs://ipfs/CID`) as a gateway URL, or null. */
export function ipfsGatewayUrl(uri: string, gateway: string): string | null {
  const rest = uri.replace(/^ipfs:\/*(ipfs\/)?/i, '');
  const [cid, ...path] = rest.split('/');
  if (!cid || !/^[A-Za-z0-9]+$/.test(cid)) return null;
  const root = `${gateway.endsWith('/') ? gateway : `${gateway}/`}${cid}`;
  const url = [root, ...path].join('/');
  // Dot segments would climb out of /ipfs/CID on the gateway's host, and URL parsing finds them
  // in more spellings than a pattern would: percent-encoded, split by a tab (dropped), or ended by
  // a backslash (read as "/"). So the URL is parsed as the fetch will parse it, and must stay below.
  try {
    if (!`${new URL(url).pathname}/`.startsWith(`${new URL(root).pathname}/`)) return null;
  } catch {
    return null;
  }
  return url;
}

async function fromHttp(kind: RegistrationKind, url: string, options: FetchOptions): Promise<FetchRegistrationResult> {
  const answer = await safeGet(url, { ...options, accept: 'application/json, */*;q=0.5' });
  return answer.ok ? toDocument(kind, answer.body, options.maxBytes ?? fetchDefaults.maxBytes) : answer;
}

function toDocument(kind: RegistrationKind, bytes: Buffer, maxBytes: number): FetchRegistrationResult {
  if (bytes.length > maxBytes) return failure('too_large', `document larger than ${maxBytes} bytes`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    // A UTF-8 byte order mark is legal in a file but not in JSON.parse.
    return { ok: true, kind, body: JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')), sha256 };
  } catch (err) {
    return failure('invalid_json', `not JSON: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
  }
}
