// Reads a list source: a local file, or a URL fetched with a deadline and a size cap, as chunks
// so sdn_advanced.xml (about 100 MB) can be hashed and parsed without holding it whole.
// URLs must be https; plain http is accepted only for loopback hosts (local mirrors, tests).
import { createReadStream } from 'node:fs';

export interface SourceLimits {
  /** Deadline for a URL, from the request to the last byte. */
  timeoutMs: number;
  /** Largest accepted source, in bytes; a bigger one fails. */
  maxBytes: number;
}

export const defaultSourceLimits: SourceLimits = { timeoutMs: 120_000, maxBytes: 512 * 1024 * 1024 };

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

/** The location as recorded and logged: URLs lose credentials, query and fragment (signed URLs carry secrets there). */
export function describeSource(location: string): string {
  if (!isUrl(location)) return location;
  const url = new URL(location);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export async function* readSource(location: string, limits: SourceLimits = defaultSourceLimits): AsyncGenerator<Uint8Array> {
  const chunks = isUrl(location) ? fetchChunks(location, limits) : createReadStream(location);
  let total = 0;
  for await (const chunk of chunks as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > limits.maxBytes) throw new Error(`${describeSource(location)}: larger than ${limits.maxBytes} bytes`);
    yield chunk;
  }
}

export async function readSourceBytes(location: string, limits: SourceLimits = defaultSourceLimits): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of readSource(location, limits)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const maxRedirects = 5;

async function* fetchChunks(location: string, limits: SourceLimits): AsyncGenerator<Uint8Array> {
  const name = describeSource(location);
  try {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    // Redirects are followed (OFAC's download links redirect to storage), each hop checked before
    // it is requested, so a redirect can never lead off https.
    let url = new URL(location);
    let response: Response;
    for (let hop = 0; ; hop++) {
      checkFetchable(url, name);
      response = await fetch(url, { signal, redirect: 'manual' });
      const next = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !next) break;
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new Error(`${name}: more than ${maxRedirects} redirects`);
      url = new URL(next, url);
    }
    if (!response.ok || !response.body) throw new Error(`${name}: HTTP ${response.status}`);
    const declared = Number(response.headers.get('content-length'));
    if (declared > limits.maxBytes) {
      await response.body.cancel();
      throw new Error(`${name}: larger than ${limits.maxBytes} bytes (Content-Length ${declared})`);
    }
    yield* response.body;
  } catch (err) {
    if (err instanceof DOMException && err.name === 'TimeoutError') throw new Error(`${name}: no complete answer within ${limits.timeoutMs} ms`);
    throw err;
  }
}

function checkFetchable(url: URL, name: string): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && loopbackHosts.has(url.hostname)) return;
  throw new Error(`${name}: only https URLs are fetched (http only from loopback), not ${url.protocol}//${url.host}`);
}
