// One HTTP(S) GET of a URL that came from someone else (an agent's registration), made safe to
// run unattended: every hop's host is resolved first and refused when private, the connection is
// pinned to the address that was checked (so DNS cannot answer differently at connect time),
// redirects are followed by hand up to a limit, only to http/https and never from https down to
// http (a file asked for over TLS must not be served in the clear), the body is counted while
// it streams, and one deadline covers DNS, connects, redirects and the body. It never throws.
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { isPrivateAddress } from './private-addresses.ts';

export interface FetchOptions {
  /** Deadline for the whole fetch, redirects and body included. */
  timeoutMs?: number;
  maxBytes?: number;
  /** Where `ipfs://CID/path` is fetched from: `${ipfsGateway}CID/path`. */
  ipfsGateway?: string;
  maxRedirects?: number;
  /**
   * Lets hosts resolve to loopback and private networks: tests and the local demo only. A list
   * allows those addresses alone (tests: one loopback address allowed, the others refused).
   */
  allowPrivateAddresses?: boolean | readonly string[];
  /** Resolves a host name: the system's resolver unless given (tests name loopback servers with it). */
  resolve?: (host: string) => Promise<readonly { address: string; family: number }[]>;
  /** An extra trusted CA (PEM) for https, next to the public roots, e.g. the loopback devnet's. */
  ca?: string;
}

export const fetchDefaults = {
  timeoutMs: 5000,
  maxBytes: 256 * 1024,
  ipfsGateway: 'https://ipfs.io/ipfs/',
  maxRedirects: 3,
  allowPrivateAddresses: false,
} as const;

export type FetchFailureStatus =
  /** A 4xx other than 429: the file is not there for us. */
  | 'http_error'
  /** A 5xx or 429: the server cannot answer now. Transient, like timeout and network_error. */
  | 'server_error'
  | 'timeout'
  | 'too_large'
  | 'invalid_json'
  | 'unsupported_uri'
  | 'network_error'
  | 'redirect_refused'
  | 'private_address';

export interface FetchFailure {
  ok: false;
  status: FetchFailureStatus;
  error: string;
}

export interface HttpBody {
  ok: true;
  /** The 2xx body of the last hop, at most maxBytes long. */
  body: Buffer;
}

export interface SafeGetOptions extends FetchOptions {
  accept: string;
  /** Keep the first maxBytes of a larger body instead of failing with too_large. */
  truncate?: boolean;
}

export const failure = (status: FetchFailureStatus, error: string): FetchFailure => ({ ok: false, status, error });

const userAgent = 'wallet-reputation-metadata/1 (+ERC-8004 registration fetcher)';

export async function safeGet(url: string, options: SafeGetOptions): Promise<HttpBody | FetchFailure> {
  const o = { ...fetchDefaults, ...options };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), o.timeoutMs);
  try {
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      return failure('unsupported_uri', `not a URL: ${url.slice(0, 200)}`);
    }
    for (let redirects = 0; ; redirects++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        return redirects === 0
          ? failure('unsupported_uri', `unsupported scheme ${current.protocol}`)
          : failure('redirect_refused', `redirect to a ${current.protocol} URL`);
      }
      const target = await resolveHost(current, o, deadline.signal);
      if (!target.ok) return target;
      const response = await request(current, target, o, deadline.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        if (redirects >= o.maxRedirects) return failure('redirect_refused', `more than ${o.maxRedirects} redirects`);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return failure('redirect_refused', `redirect to an invalid URL: ${location.slice(0, 200)}`);
        }
        if (next.protocol === 'http:' && current.protocol === 'https:') {
          return failure('redirect_refused', `redirect from https to plain http: ${next.href.slice(0, 200)}`);
        }
        current = next;
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        return failure(status >= 500 || status === 429 ? 'server_error' : 'http_error', `HTTP ${status} from ${current.href}`);
      }
      const body = await readBody(response, o.maxBytes, o.truncate ?? false);
      if (body === 'too_large') return failure('too_large', `body larger than ${o.maxBytes} bytes`);
      return { ok: true, body };
    }
  } catch (err) {
    if (deadline.signal.aborted) return failure('timeout', `no complete answer within ${o.timeoutMs} ms`);
    return failure('network_error', err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
  }
}

interface Target {
  ok: true;
  /** Every address the host resolved to, all checked; the connection may use any of them. */
  addresses: { address: string; family: 4 | 6 }[];
}

// URL keeps IPv6 literals in brackets; DNS and sockets want them bare.
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

const systemResolve = (host: string) => dnsLookup(host, { all: true, verbatim: true });

async function resolveHost(url: URL, o: FetchOptions, signal: AbortSignal): Promise<Target | FetchFailure> {
  const host = bareHost(url);
  const answers = await untilAborted((o.resolve ?? systemResolve)(host), signal);
  if (answers.length === 0) return failure('network_error', `${host} has no address`);
  // Every answer must be public: otherwise a name could list one public and one private address.
  const allowed = o.allowPrivateAddresses ?? false;
  const blocked = answers.find((a) => isPrivateAddress(a.address) && !(allowed === true || (Array.isArray(allowed) && allowed.includes(a.address))));
  if (blocked) return failure('private_address', `${host} resolves to the non-public address ${blocked.address}`);
  return { ok: true, addresses: answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })) };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (err: unknown) => (signal.removeEventListener('abort', onAbort), reject(err)),
    );
  });
}

function request(url: URL, target: Target, o: SafeGetOptions, signal: AbortSignal): Promise<IncomingMessage> {
  // Connect only to addresses that were checked, whatever the resolver would say now. With
  // `all`, Node tries each in turn (happy eyeballs), e.g. 127.0.0.1 when ::1 refuses.
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    const [first] = target.addresses;
    if (lookupOptions.all) callback(null, target.addresses);
    else callback(null, first!.address, first!.family);
  };
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      {
        protocol: url.protocol,
        hostname: bareHost(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: o.accept, 'accept-encoding': 'identity', 'user-agent': userAgent },
        lookup: pinned,
        signal,
        agent: false,
        ...(secure && o.ca ? { ca: [...rootCertificates, o.ca] } : {}),
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  truncate: boolean,
): Promise<Buffer | 'too_large'> {
  const declared = Number(response.headers['content-length']);
  if (!truncate && declared > maxBytes) {
    response.destroy();
    return 'too_large';
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // The deadline's signal, given to the request, destroys the response too: a server that keeps
    // the connection open without sending ends this loop with an error.
    for await (const chunk of response as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (!truncate) return 'too_large';
        chunks.push(chunk.subarray(0, room));
        return Buffer.concat(chunks);
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    response.destroy();
  }
  return Buffer.concat(chunks);
}
