// fetchRegistrationFile against real loopback servers: an HTTPS origin with a self-signed
// certificate, a plain HTTP IPFS gateway stand-in, and data:/inline URIs.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRegistrationFile, ipfsGatewayUrl } from '../pipeline/metadata/fetch-registration.ts';
import type { FetchOptions } from '../pipeline/metadata/safe-get.ts';
import { sendJson, startLoopbackServer, type LoopbackServer } from './helpers/loopback-server.ts';

const registration = { type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1', name: 'Loopback Agent', description: 'Serves tests.' };
const registrationText = JSON.stringify(registration);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let origin: LoopbackServer;
let gateway: LoopbackServer;
let options: FetchOptions;
const ipfsRequests: string[] = [];

beforeAll(async () => {
  origin = await startLoopbackServer(
    async (req, res) => {
      const url = new URL(req.url ?? '/', 'https://x');
      const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
      // A JSON object of exactly N bytes (padded with spaces), chunked.
      const sized = /^\/sized\/(\d+)$/.exec(url.pathname);
      if (sized) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{' + ' '.repeat(Number(sized[1]) - 2) + '}');
      }
      // The same, with its length declared up front.
      const declared = /^\/declared\/(\d+)$/.exec(url.pathname);
      if (declared) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': declared[1] });
        return void res.end('{' + ' '.repeat(Number(declared[1]) - 2) + '}');
      }
      if (url.pathname === '/slower-than-default') {
        await sleep(5_600);
        return sendJson(res, registration);
      }
      if (hops) {
        const left = Number(hops[1]);
        res.writeHead(302, { location: left > 1 ? `/hops/${left - 1}` : '/agent.json' });
        return void res.end();
      }
      switch (url.pathname) {
        case '/agent.json':
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end(registrationText);
        case '/with-bom.json':
          res.writeHead(200);
          return void res.end(`\uFEFF${registrationText}`);
        case '/slow-headers':
          await sleep(2_000);
          return sendJson(res, registration);
        case '/slow-body':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"name":');
          await sleep(2_000);
          return void res.end('"late"}');
        case '/big-chunked': {
          // No Content-Length: the limit must hold while streaming.
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          for (let i = 0; i < 64 && !res.destroyed; i++) {
            if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
          }
          return void res.end('{}');
        }
        case '/big-declared':
          res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
          return void res.end();
        case '/to-ftp':
          res.writeHead(301, { location: 'ftp://127.0.0.1/agent.json' });
          return void res.end();
        case '/to-file':
          res.writeHead(307, { location: 'file:///etc/passwd' });
          return void res.end();
        case '/by-query':
          return sendJson(res, { query: url.search });
        case '/negotiated':
          // A host that serves its page to browsers and the file to clients that ask for JSON first.
          if (req.headers.accept?.startsWith('application/json')) return sendJson(res, registration);
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<!doctype html><p>Loopback Agent</p>');
        case '/multiple-choices':
          res.writeHead(300, { location: '/agent.json' });
          return void res.end();
        case '/choices-without-location':
          return sendJson(res, registration, 300);
        case '/to-plain-http':
          res.writeHead(302, { location: `${gateway.origin}/ipfs/bafyloopback/agent.json` });
          return void res.end();
        case '/to-invalid':
          res.writeHead(302, { location: 'http://[oops/agent.json' });
          return void res.end();
        case '/unavailable':
          return sendJson(res, { error: 'maintenance' }, 503);
        case '/crashed':
          return sendJson(res, { error: 'internal' }, 500);
        case '/busy':
          return sendJson(res, { error: 'slow down' }, 429);
        case '/html':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<!doctype html><p>not json</p>');
        default:
          return sendJson(res, { error: 'not found' }, 404);
      }
    },
    { tls: true },
  );
  gateway = await startLoopbackServer((req, res) => {
    if (req.url === '/to-https') {
      res.writeHead(301, { location: `${origin.origin}/agent.json` });
      return void res.end();
    }
    ipfsRequests.push(req.url ?? '');
    if (req.url?.startsWith('/ipfs/bafyloopback')) return sendJson(res, registration);
    return sendJson(res, { error: 'no such CID' }, 404);
  });
  options = { allowPrivateAddresses: true, ca: origin.ca, ipfsGateway: `${gateway.origin}/ipfs/` };
});

describe('fetchRegistrationFile over https', () => {
  it('fetches and parses a JSON file, trusting the extra CA', async () => {
    const result = await fetchRegistrationFile(`${origin.origin}/agent.json`, options);
    expect(result).toEqual({ ok: true, kind: 'https', body: registration, sha256: sha256(registrationText) });
  });

  it('does not trust the self-signed certificate without the CA', async () => {
    const result = await fetchRegistrationFile(`${origin.origin}/agent.json`, { allowPrivateAddresses: true });
    expect(result).toMatchObject({ ok: false, status: 'network_error', error: expect.stringMatching(/certificate/i) });
  });

  it('accepts a file that starts with a byte order mark', async () => {
    expect(await fetchRegistrationFile(`${origin.origin}/with-bom.json`, options)).toMatchObject({ ok: true, body: registration });
  });

  it('reports HTTP errors (5xx and 429 apart: transient) and non-JSON bodies', async () => {
    expect(await fetchRegistrationFile(`${origin.origin}/missing.json`, options)).toMatchObject({ ok: false, status: 'http_error', error: expect.stringMatching(/^HTTP 404 /) });
    expect(await fetchRegistrationFile(`${origin.origin}/unavailable`, options)).toMatchObject({ ok: false, status: 'server_error', error: expect.stringMatching(/^HTTP 503 /) });
    expect(await fetchRegistrationFile(`${origin.origin}/crashed`, options)).toMatchObject({ ok: false, status: 'server_error', error: expect.stringMatching(/^HTTP 500 /) });
    expect(await fetchRegistrationFile(`${origin.origin}/busy`, options)).toMatchObject({ ok: false, status: 'server_error', error: expect.stringMatching(/^HTTP 429 /) });
    expect(await fetchRegistrationFile(`${origin.origin}/html`, options)).toMatchObject({ ok: false, status: 'invalid_json' });
  });

  it('times out a server that is slow to answer or slow to finish, within the one deadline', async () => {
    for (const path of ['/slow-headers', '/slow-body']) {
      const started = Date.now();
      const result = await fetchRegistrationFile(`${origin.origin}${path}`, { ...options, timeoutMs: 300 });
      expect(result).toMatchObject({ ok: false, status: 'timeout' });
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  it('stops reading a body larger than maxBytes, with or without Content-Length', async () => {
    const chunked = await fetchRegistrationFile(`${origin.origin}/big-chunked`, { ...options, maxBytes: 100_000 });
    expect(chunked).toMatchObject({ ok: false, status: 'too_large' });
    const declared = await fetchRegistrationFile(`${origin.origin}/big-declared`, options);
    expect(declared).toMatchObject({ ok: false, status: 'too_large' });
  });

  it('takes a body of exactly maxBytes, whether its length is declared or not', async () => {
    const small = { ...options, maxBytes: 1_000 };
    for (const path of ['/declared', '/sized']) {
      expect(await fetchRegistrationFile(`${origin.origin}${path}/1000`, small), path).toMatchObject({ ok: true, body: {} });
      expect(await fetchRegistrationFile(`${origin.origin}${path}/1001`, small), path).toMatchObject({ ok: false, status: 'too_large' });
    }
  });

  it('sends the query string, and asks for JSON first', async () => {
    expect(await fetchRegistrationFile(`${origin.origin}/by-query?agent=7`, options)).toMatchObject({ ok: true, body: { query: '?agent=7' } });
    expect(await fetchRegistrationFile(`${origin.origin}/negotiated`, options)).toMatchObject({ ok: true, body: registration });
  });

  it('limits a file to 256 KiB and 5 s by default', { timeout: 15_000 }, async () => {
    const { ca, ipfsGateway } = options;
    const defaults: FetchOptions = { allowPrivateAddresses: true, ca, ipfsGateway };
    expect(await fetchRegistrationFile(`${origin.origin}/sized/${256 * 1024}`, defaults)).toMatchObject({ ok: true, body: {} });
    expect(await fetchRegistrationFile(`${origin.origin}/sized/${256 * 1024 + 1}`, defaults)).toMatchObject({ ok: false, status: 'too_large' });
    const started = Date.now();
    expect(await fetchRegistrationFile(`${origin.origin}/slower-than-default`, defaults)).toMatchObject({ ok: false, status: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5_500);
  });

  it('follows redirects up to maxRedirects and refuses more', async () => {
    expect(await fetchRegistrationFile(`${origin.origin}/hops/3`, options)).toMatchObject({ ok: true, kind: 'https', body: registration });
    expect(await fetchRegistrationFile(`${origin.origin}/hops/4`, options)).toMatchObject({ ok: false, status: 'redirect_refused' });
    expect(await fetchRegistrationFile(`${origin.origin}/hops/1`, { ...options, maxRedirects: 0 })).toMatchObject({
      ok: false,
      status: 'redirect_refused',
    });
  });

  it('follows any 3xx with a Location, and takes one without as an HTTP error', async () => {
    expect(await fetchRegistrationFile(`${origin.origin}/multiple-choices`, options)).toMatchObject({ ok: true, body: registration });
    expect(await fetchRegistrationFile(`${origin.origin}/choices-without-location`, options)).toMatchObject({ ok: false, status: 'http_error' });
  });

  it('refuses redirects to schemes other than http and https, and to a Location that is no URL', async () => {
    for (const path of ['/to-ftp', '/to-file', '/to-invalid']) {
      expect(await fetchRegistrationFile(`${origin.origin}${path}`, options)).toMatchObject({ ok: false, status: 'redirect_refused' });
    }
  });

  it('refuses a redirect from https down to plain http, and follows one up from http to https', async () => {
    const downgraded = await fetchRegistrationFile(`${origin.origin}/to-plain-http`, options);
    expect(downgraded).toMatchObject({ ok: false, status: 'redirect_refused' });
    expect((downgraded as { error: string }).error).toContain('from https to plain http');
    // The target itself answers over http: only the downgrade is refused.
    expect(await fetchRegistrationFile(`${gateway.origin}/ipfs/bafyloopback/agent.json`, options)).toMatchObject({ ok: true });
    expect(await fetchRegistrationFile(`${gateway.origin}/to-https`, options)).toMatchObject({ ok: true, body: registration });
  });

  it('refuses loopback, private and link-local hosts unless allowed', async () => {
    const strict = { ...options, allowPrivateAddresses: false };
    const localhost = origin.origin.replace('127.0.0.1', 'localhost');
    for (const uri of [
      `${origin.origin}/agent.json`,
      `${localhost}/agent.json`,
      'http://[::1]/agent.json',
      'http://10.1.2.3/agent.json',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/agent.json',
      'http://0x7f.1/agent.json',
    ]) {
      expect(await fetchRegistrationFile(uri, strict), uri).toMatchObject({ ok: false, status: 'private_address' });
    }
    // The same server is fine once private addresses are allowed (tests, the local demo).
    expect(await fetchRegistrationFile(`${localhost}/agent.json`, options)).toMatchObject({ ok: true });
  });

  it('refuses private addresses when allowPrivateAddresses is not given', async () => {
    const { ca, ipfsGateway } = options;
    expect(await fetchRegistrationFile(`${origin.origin}/agent.json`, { ca })).toMatchObject({ ok: false, status: 'private_address' });
    expect(await fetchRegistrationFile('ipfs://bafyloopback', { ipfsGateway })).toMatchObject({ ok: false, status: 'private_address' });
  });

  it('reports names that do not resolve as network errors', async () => {
    expect(await fetchRegistrationFile('https://no-such-host.invalid/agent.json', options)).toMatchObject({ ok: false, status: 'network_error' });
  });

  it('reports plain http as kind http', async () => {
    expect(await fetchRegistrationFile(`${gateway.origin}/ipfs/bafyloopback`, options)).toMatchObject({ ok: true, kind: 'http' });
  });
});

describe('fetchRegistrationFile and the addresses it connects to', () => {
  // Two servers on one port, at 127.0.0.1 and 127.0.0.2, each answering with its own address; a
  // list in allowPrivateAddresses allows the first alone, so the second stands for a private host.
  const servers: http.Server[] = [];
  let port = 0;
  const serve = (host: string) =>
    new Promise<void>((resolve) => {
      const server = http.createServer((req, res) => {
        if (req.url === '/to-other') {
          res.writeHead(302, { location: `http://127.0.0.2:${port}/agent.json` });
          return void res.end();
        }
        sendJson(res, { ...registration, name: `served by ${host}` });
      });
      servers.push(server);
      server.listen(port, host, () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  beforeAll(async () => {
    await serve('127.0.0.1');
    await serve('127.0.0.2');
  });
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
  const onlyFirst: FetchOptions = { allowPrivateAddresses: ['127.0.0.1'] };
  const name = (result: Awaited<ReturnType<typeof fetchRegistrationFile>>) => (result.ok ? (result.body as { name: string }).name : result.status);

  it('checks the address of every hop, not only the first', async () => {
    expect(name(await fetchRegistrationFile(`http://127.0.0.1:${port}/agent.json`, onlyFirst))).toBe('served by 127.0.0.1');
    expect(await fetchRegistrationFile(`http://127.0.0.1:${port}/to-other`, onlyFirst)).toMatchObject({ ok: false, status: 'private_address', error: expect.stringContaining('127.0.0.2') });
  });

  it('refuses a name when any of its addresses is private, not only the first', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.2', family: 4 }];
    expect(await fetchRegistrationFile(`http://registry.test:${port}/agent.json`, { ...onlyFirst, resolve })).toMatchObject({
      ok: false,
      status: 'private_address',
      error: 'registry.test resolves to the non-public address 127.0.0.2',
    });
  });

  it('connects to the address it checked, whatever the name resolves to afterwards', async () => {
    const answers = ['127.0.0.1', '127.0.0.2'];
    const resolve = async () => [{ address: answers.shift() ?? '127.0.0.2', family: 4 }];
    expect(name(await fetchRegistrationFile(`http://registry.test:${port}/agent.json`, { allowPrivateAddresses: true, resolve }))).toBe('served by 127.0.0.1');
  });

  it('holds name resolution to the deadline', async () => {
    const resolve = () => new Promise<never>(() => {});
    expect(await fetchRegistrationFile(`http://registry.test:${port}/agent.json`, { ...onlyFirst, resolve, timeoutMs: 200 })).toMatchObject({ ok: false, status: 'timeout' });
  });
});

describe('fetchRegistrationFile over ipfs', () => {
  it('fetches ipfs://CID[/path] through the gateway', async () => {
    ipfsRequests.length = 0;
    expect(await fetchRegistrationFile('ipfs://bafyloopback', options)).toMatchObject({ ok: true, kind: 'ipfs', body: registration });
    expect(await fetchRegistrationFile('ipfs://bafyloopback/agent/registration.json', options)).toMatchObject({ ok: true, kind: 'ipfs' });
    expect(await fetchRegistrationFile('ipfs://ipfs/bafyloopback', options)).toMatchObject({ ok: true, kind: 'ipfs' });
    expect(ipfsRequests).toEqual(['/ipfs/bafyloopback', '/ipfs/bafyloopback/agent/registration.json', '/ipfs/bafyloopback']);
    expect(await fetchRegistrationFile('ipfs://bafyunknown', options)).toMatchObject({ ok: false, status: 'http_error' });
  });

  it('builds gateway URLs and rejects malformed ones', () => {
    expect(ipfsGatewayUrl('ipfs://QmAbc/x.json', 'https://ipfs.io/ipfs/')).toBe('https://ipfs.io/ipfs/QmAbc/x.json');
    expect(ipfsGatewayUrl('ipfs://QmAbc', 'https://gw.example/ipfs')).toBe('https://gw.example/ipfs/QmAbc');
    expect(ipfsGatewayUrl('ipfs://', 'https://ipfs.io/ipfs/')).toBeNull();
    expect(ipfsGatewayUrl('ipfs://{cid}', 'https://ipfs.io/ipfs/')).toBeNull();
  });
});

describe('fetchRegistrationFile without a network', () => {
  it('decodes base64 data: URIs, with or without a media type', async () => {
    const base64 = Buffer.from(registrationText).toString('base64');
    for (const uri of [`data:application/json;base64,${base64}`, `data:;base64,${base64}`, `data:application/json;charset=utf-8;base64,${base64}`]) {
      expect(await fetchRegistrationFile(uri), uri).toEqual({ ok: true, kind: 'data', body: registration, sha256: sha256(registrationText) });
    }
  });

  it('decodes percent-encoded and raw data: URIs', async () => {
    const withPercent = { ...registration, description: '100% uptime, ünïcode' };
    expect(await fetchRegistrationFile(`data:application/json,${encodeURIComponent(JSON.stringify(withPercent))}`)).toMatchObject({
      ok: true,
      kind: 'data',
      body: withPercent,
    });
    // Raw JSON with a stray "%" cannot be percent-decoded and is taken as written.
    expect(await fetchRegistrationFile(`data:application/json,${JSON.stringify(withPercent)}`)).toMatchObject({ ok: true, body: withPercent });
  });

  it('reads data: URIs whatever the case of the scheme and parameters, percent-encoded base64, and raw JSON over several lines', async () => {
    // One byte more than a multiple of 3, so the base64 ends in "==", which percent-encodes.
    const padded = Buffer.from(`${registrationText} `).toString('base64');
    expect(padded).toMatch(/==$/);
    for (const uri of [
      `DATA:application/json;base64,${padded}`,
      `data:application/json;BASE64,${padded}`,
      `data:application/json;base64,${encodeURIComponent(padded)}`,
      `data:application/json,${JSON.stringify(registration, null, 2)}`,
    ]) {
      expect(await fetchRegistrationFile(uri), uri).toMatchObject({ ok: true, kind: 'data', body: registration });
    }
  });

  it('limits inline documents to 256 KiB by default', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(256 * 1024) });
    expect(await fetchRegistrationFile(big)).toMatchObject({ ok: false, status: 'too_large' });
    expect(await fetchRegistrationFile(`data:application/json,${big}`)).toMatchObject({ ok: false, status: 'too_large' });
  });

  it('takes JSON written on-chain as the URI itself', async () => {
    expect(await fetchRegistrationFile(`  ${registrationText}\n`)).toEqual({ ok: true, kind: 'json', body: registration, sha256: sha256(registrationText) });
    expect(await fetchRegistrationFile('{"name": "broken"')).toMatchObject({ ok: false, status: 'invalid_json' });
  });

  it('applies maxBytes to inline documents', async () => {
    const big = `data:application/json;base64,${Buffer.from(JSON.stringify({ name: 'x'.repeat(2_000) })).toString('base64')}`;
    expect(await fetchRegistrationFile(big, { maxBytes: 1_000 })).toMatchObject({ ok: false, status: 'too_large' });
  });

  it('reports unsupported and malformed URIs without throwing', async () => {
    for (const uri of ['', '   ', 'ar://abc', 'ftp://example.com/a.json', 'agent.json', 'data:application/json;base64', 'https://', 'ipfs://', 'ipfs://bafyloopback/..\\..\\admin']) {
      expect(await fetchRegistrationFile(uri), JSON.stringify(uri)).toMatchObject({ ok: false, status: 'unsupported_uri' });
    }
    expect(await fetchRegistrationFile('data:application/json;base64,bm90IGpzb24=')).toMatchObject({ ok: false, status: 'invalid_json' });
  });
});
