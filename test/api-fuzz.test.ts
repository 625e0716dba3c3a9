// Fuzzes the public API over real HTTP with fast-check: every operation of the OpenAPI list
// (api/openapi/operations.ts, which test/openapi.test.ts holds equal to the Koa routers, so a new
// route is fuzzed without touching this file) with its query parameters, unknown paths, random
// methods, paths, queries, headers, API keys and bodies. Whatever is sent, the server must answer
// below 500, every 4xx body must be the spec 7.1 error envelope with a code the spec lists, and no
// body may carry a stack trace or a source path. Raw-socket oddities (malformed request lines,
// absurd headers, methods Node's parser refuses) must get a 7.1 answer too.
//
// Reproduce a failure with the seed fast-check prints: FUZZ_SEED=<seed> npx vitest run test/api-fuzz.test.ts
// (FUZZ_RUNS=<n> sets the runs of every property, e.g. more for a longer local search).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import bs58 from 'bs58';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { importFile } from '../pipeline/import/import-file.ts';
import type { ImportKind } from '../pipeline/import/kinds.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { sha256Hex } from '../pipeline/secrets.ts';
import { errorStatus } from '../api/errors.ts';
import { changeIpAllowlist } from '../api/security/ip-allowlist.ts';
import { encodeCursor } from '../api/routes/agents.ts';
import { operations, type Operation } from '../api/openapi/operations.ts';
import { planNames, type PlanName } from '../api/plans.ts';
import { importFixtures } from './helpers/import-store.ts';
import { tempDataDir } from './helpers/temp.ts';

// The error codes of spec 7.1 with their statuses (api/errors.ts holds the spec's table); no
// request here may get one of the 5xx ones.
const clientErrorCodes = Object.fromEntries(Object.entries(errorStatus).filter(([, status]) => status < 500)) as Record<string, number>;

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
// A longer search (FUZZ_RUNS) gets an hour per property instead of the suite's minute.
const longSearch = process.env.FUZZ_RUNS ? 3_600_000 : undefined;

// Addresses of the import fixtures that the scoring run gives records.
const knownAddresses = [
  '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c',
  '0x55FB6E92683190F4CADE79F1B676ED77B599FBED',
  '0x7181a4864221e5ed136efa24ef572e841d6dc597',
  'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh',
  '2buCpwS9jsJwLbcb197YGi5ivBxJ2GptQXS8gQjBGThd',
];

/** A request path from an OpenAPI path: each `{name}` parameter filled with `param`. */
function fillPath(template: string, param: string): string {
  return template.replace(/\{[^}]+\}/g, () => param);
}

const queryNamesOf = (op: Operation) => Object.keys(op.request.query?.shape ?? {});

// ---- arbitraries -------------------------------------------------------------------------------

const chars = (alphabet: string) => fc.constantFrom(...alphabet.split(''));
const hexString = (length: number) => fc.string({ unit: chars('0123456789abcdefABCDEF'), minLength: length, maxLength: length });
const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Percent signs in every shape: valid escapes, truncated ones, invalid UTF-8, non-hex. */
const percentJunk = fc
  .array(
    fc.oneof(
      fc.constantFrom('%', '%%', '%E0%A4%A', '%E0%A4', '%C0%AF', '%FF', '%zz', '%00', '%2F', '%25', '%5C', '%0A', '%u0041', '%F0%9F%98', '%ED%A0%80'),
      hexString(2).map((h) => `%${h}`),
      fc.string({ maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));

const unicodeJunk = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('ﾟ', '𝟘x' + '0'.repeat(40), '０x' + 'a'.repeat(40), 'ǅ', '\u202e0x1234', '\u0000', ' ', '..', '.', '~', '../../etc/passwd', '\\', "'; DROP TABLE accounts; --"),
);

const addressArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...knownAddresses) },
  { weight: 3, arbitrary: hexString(40).map((h) => `0x${h}`) },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bs58.encode(b)) },
  { weight: 1, arbitrary: fc.string({ unit: chars(base58Alphabet), minLength: 30, maxLength: 46 }) },
  { weight: 1, arbitrary: fc.nat({ max: 60 }).chain((n) => hexString(n).map((h) => `0x${h}`)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(' ', '\t', '+', '%20', '%09'), fc.constantFrom(...knownAddresses)).map(([pad, a]) => `${pad}${a}${pad}`) },
  { weight: 2, arbitrary: unicodeJunk },
  { weight: 2, arbitrary: percentJunk },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 9_000 }).map((n) => 'a'.repeat(n)) },
);

const cursorArb = fc.oneof(
  fc.record({ score: fc.integer({ min: -5, max: 105 }), chain: fc.constantFrom('base', 'ethereum', 'BASE', '', 'x'.repeat(70)), agentId: fc.constantFrom('1', '0', '-1', '9'.repeat(41), 'abc') }).map(encodeCursor),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '').toString('base64url')),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '').toString('base64')),
  fc.base64String({ maxLength: 80 }),
  fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('base64url')),
  fc.integer({ min: 500, max: 3_000 }).map((n) => 'A'.repeat(n)),
);

// Every documented query parameter of any operation (sent to every route), and names that are not.
const queryNames = [
  ...new Set(operations.flatMap(queryNamesOf)),
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'limit[]', 'limit[0]',
];

const queryValueArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('summary', 'full', 'detailed', 'A', 'B', 'C', 'D', 'E', 'F', 'a', 'base', 'ethereum', 'solana', 'BASE', 'base ', 'real', 'placeholder', 'unknown', 'agent', 'service', 'hybrid', 'wallet', 'true', 'false', 'TRUE', '1', '0', '') },
  { weight: 3, arbitrary: fc.constantFrom('-1', '25', '100', '101', '200', '1000000', '1000001', '1e3', '1e400', '-0', '0.5', '.5', '5.', 'NaN', 'Infinity', '0x10', ' 7', '٣', '9'.repeat(400), '00000000000000000000001') },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 2, arbitrary: cursorArb },
  { weight: 2, arbitrary: unicodeJunk },
  { weight: 1, arbitrary: percentJunk },
);

type Encoding = 'component' | 'raw';
const encodingArb = fc.constantFrom<Encoding>('component', 'component', 'raw');

/**
 * Puts text into a request line: percent-encoded as a client would, or raw, where only what Node's
 * client refuses to send (outside \x21-\xff) is escaped and `%`, `/`, `?`, `#`, `&`, `=` go as they are.
 */
function encode(text: string, how: Encoding): string {
  if (how === 'component') return encodeURIComponent(text);
  return Array.from(text, (ch) => (/^[\x21-\xff]$/.test(ch) ? ch : encodeURIComponent(ch))).join('');
}

/** Query strings: mostly the operation's own parameters, then any documented one, then any name. */
const queryArbOf = (own: readonly string[]) => fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.oneof(
          { weight: own.length ? 4 : 0, arbitrary: fc.constantFrom(...(own.length ? own : queryNames)) },
          { weight: 2, arbitrary: fc.constantFrom(...queryNames) },
          { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        ),
        queryValueArb,
      ),
      { maxLength: 6 },
    ),
    encodingArb,
    fc.constantFrom('', '&', '&&', '#frag', '&=', '&x', '&[]=1', '&a[b]=1'),
  )
  .map(([pairs, how, tail]) => {
    const text = pairs.map(([k, v]) => `${encode(k, how)}=${encode(v, how)}`).join('&') + tail;
    return text ? `?${text}` : '';
  });
const queryArb = queryArbOf([]);

const keyNames = ['free', 'starter', 'growth', 'scale', 'pro', 'enterprise', 'enterprise_blocked', 'cancelled'] as const;
type KeyName = (typeof keyNames)[number];
type KeyChoice = { kind: 'named'; name: KeyName; variant: 'as is' | 'upper' | 'truncated' | 'twice' | 'padded' } | { kind: 'none' } | { kind: 'literal'; value: string };

const headerValueChars = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9)).map((c) => String.fromCharCode(c)), maxLength: 60 });

const keyArb: fc.Arbitrary<KeyChoice> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('named' as const), name: fc.constantFrom(...keyNames), variant: fc.constant('as is' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('named' as const), name: fc.constantFrom(...keyNames), variant: fc.constantFrom('upper' as const, 'truncated' as const, 'twice' as const, 'padded' as const) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.oneof(headerValueChars, fc.constantFrom('', 'rpk_', 'rpk_' + 'A'.repeat(43), 'Bearer x', 'null', 'undefined')).map((value) => ({ kind: 'literal' as const, value })) },
);

const headerNames = [
  'Accept', 'Accept-Charset', 'Accept-Encoding', 'Accept-Language', 'Authorization', 'Cache-Control', 'Content-Encoding', 'Content-Language',
  'Cookie', 'Expect', 'Forwarded', 'If-Modified-Since', 'If-None-Match', 'Origin', 'Range', 'Referer', 'User-Agent', 'X-Forwarded-For',
  'X-Forwarded-Host', 'X-Forwarded-Proto', 'X-Real-IP', 'X-Request-Id', 'X-HTTP-Method-Override', 'X-Signature', 'x-api-KEY',
];
const tokenChars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const headersArb = fc.dictionary(
  fc.oneof(fc.constantFrom(...headerNames), fc.string({ unit: chars(tokenChars), minLength: 1, maxLength: 20 })),
  fc.oneof(
    headerValueChars,
    fc.constantFrom('*/*', 'application/json', 'gzip', 'br', 'deflate', 'identity', '100-continue', 'bytes=0-10', 'https', 'for=192.0.2.60;proto=http'),
    // Client addresses as proxies write them, and as they should not.
    fc.constantFrom('127.0.0.1', '203.0.113.7', '203.0.113.7, 10.0.0.1', '::1', '::ffff:203.0.113.7', 'fe80::1%eth0', '[2001:db8::1]:443', '203.0.113.7:8080', '2001:db8::1, , ,', 'unknown', '', ',', '999.1.1.1', '1.2.3.4'.repeat(500)),
  ),
  { maxKeys: 4 },
);

const contentTypeArb = fc.option(
  fc.oneof(
    fc.constantFrom(
      'application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-16', 'application/json; charset=latin1',
      'application/json; charset=bogus', 'application/json;;;', 'application/vnd.api+json', 'application/*', 'text/plain',
      'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '', ';', 'json', 'application/json, text/plain',
    ),
    headerValueChars,
  ),
  { nil: undefined },
);

// Mostly well-formed batch requests (so the lookups run), then ones with junk in every place.
const batchAddressArb = fc.oneof({ weight: 12, arbitrary: addressArb.filter((a) => a.length <= 100) }, { weight: 1, arbitrary: addressArb });
const batchChainArb = fc.oneof(fc.constantFrom('base', 'ethereum', 'solana', 'BASE', '', 'x'.repeat(300)), fc.jsonValue({ maxDepth: 1 }));
const bodyJsonArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ addresses: fc.array(batchAddressArb, { minLength: 1, maxLength: 110 }), chain: fc.constantFrom('base', 'ethereum', 'solana') }, { requiredKeys: ['addresses'] }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        addresses: fc.oneof(
          { weight: 4, arbitrary: fc.array(batchAddressArb, { maxLength: 120 }) },
          { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 10 }) },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
        ),
        chain: batchChainArb,
        extra: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }), { maxLength: 20 }).map((v) => ({ addresses: v })) },
);

const bodyArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 5, arbitrary: bodyJsonArb.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  { weight: 1, arbitrary: fc.constantFrom('{"__proto__": {"addresses": ["0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c"]}}', '{"constructor": {"prototype": {}}, "addresses": []}', '{"addresses": ["a"], "addresses": 1}', '[]', 'null', '0', '"x"', '{', '{"addresses":[', '\ufeff{"addresses":["0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c"]}').map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 500 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((d) => Buffer.from('['.repeat(d) + ']'.repeat(d))) },
  { weight: 1, arbitrary: fc.integer({ min: 30_000, max: 120_000 }).map((n) => Buffer.from(JSON.stringify({ addresses: Array.from({ length: Math.ceil(n / 45) }, () => knownAddresses[0]) }))) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 120_000 }).map((n) => Buffer.alloc(n, 'x')) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);

const methodArb = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'MKCOL', 'PURGE', 'SEARCH', 'LOCK', 'QUERY');

interface FuzzRequest {
  method: string;
  path: string;
  key: KeyChoice;
  headers: Record<string, string>;
  contentType?: string;
  body?: Buffer;
  chunked: boolean;
  /** Milliseconds the server's clock moves before the request (0 keeps the rate windows). */
  tick: number;
  /** The operationId the request is sure to reach (its method, a parameter that stays one non-empty segment). */
  documented?: string;
}

function compress(body: Buffer, encoding: string): Buffer {
  if (encoding === 'gzip') return zlib.gzipSync(body);
  if (encoding === 'deflate') return zlib.deflateSync(body);
  if (encoding === 'br') return zlib.brotliCompressSync(body);
  return body;
}

// ---- sending and checking -----------------------------------------------------------------------

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
afterAll(() => agent.destroy());

function send(origin: URL, req: FuzzRequest, headers: Record<string, string | string[]>, retried = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const all: Record<string, string | string[]> = { ...req.headers, ...headers };
    if (req.contentType !== undefined) all['Content-Type'] = req.contentType;
    // A body is framed one way or the other: Node's client chunks by default only for methods
    // that usually carry one, and would send a TRACE's body bare, read as the next request's start.
    if (req.body) all[req.chunked ? 'Transfer-Encoding' : 'Content-Length'] = req.chunked ? 'chunked' : String(req.body.length);
    const request = http.request({ host: origin.hostname, port: origin.port, method: req.method, path: req.path, headers: all, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    request.on('error', (err) => {
      // A kept-alive socket the server closed between two requests: send once more on a new one.
      if (!retried && request.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(send(origin, req, headers, true));
      else reject(err);
    });
    if (req.body) request.write(req.body);
    request.end();
  });
}

const stackTrace = /\n\s+at \S|node:internal|node_modules|file:\/\/|\/[\w.-]+\.(?:ts|js|mjs|cjs)(?::\d+)?\b/;

// Every X-Request-Id seen: each answer has its own.
const requestIds = new Set<string>();

/** The assertions every answer must pass, whatever was sent. */
function checkAnswer(req: FuzzRequest, answer: Answer): void {
  const what = `${req.method} ${req.path.slice(0, 200)} -> ${answer.status} ${answer.body.slice(0, 300)}`;
  // Every response has an X-Request-Id (README), also what Node's parser refused: req_ + 10
  // base-36 digits of the millisecond + 12 random letters, never the id of another answer.
  const id = String(answer.headers['x-request-id']);
  expect(id, what).toMatch(/^req_[0-9a-z]{10}[A-HJ-NP-Za-km-z2-9]{12}$/);
  expect(requestIds.has(id), `${what}: X-Request-Id ${id} seen before`).toBe(false);
  requestIds.add(id);
  expect(answer.status, what).toBeLessThan(500);
  expect(answer.body, what).not.toMatch(stackTrace);
  expect(answer.body, what).not.toContain(process.cwd());
  // A byte past ASCII in the request line is refused by Node's parser before any route is chosen.
  const op = /[^\x21-\x7e]/.test(req.path) ? undefined : operations.find((o) => o.operationId === req.documented);
  if (op) expect(Object.keys(op.responses), `${what}: status undocumented for ${op.path}`).toContain(String(answer.status));
  if (answer.status < 400 || req.method === 'HEAD') return;
  // The verify page is for a person: its refusals are pages too (documented as text/html).
  if (/^text\/html/.test(String(answer.headers['content-type']))) {
    expect(req.path, what).toMatch(/^\/verify\//);
    expect([400, 403, 404, 502], what).toContain(answer.status);
    if (op) expect(op.responses[answer.status]?.contentType, `${what}: undocumented page for ${op.path}`).toBe('text/html');
    return;
  }
  expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } };
  // Spec 4.5 spells out one error body with fields beside `error`: credential creation's 409.
  expect(Object.keys(body).filter((k) => !(body.error?.code === 'kyc_required' && ['verify_url', 'next_steps'].includes(k))), what).toEqual(['error']);
  expect(typeof body.error?.message, what).toBe('string');
  const code = String(body.error?.code);
  expect(Object.keys(clientErrorCodes), what).toContain(code);
  expect(clientErrorCodes[code], what).toBe(answer.status);
  if (code === 'rate_limited') expect(Number(answer.headers['retry-after']), what).toBeGreaterThanOrEqual(1);
  // The OpenAPI document promises the codes each operation answers with at each status.
  if (op) expect(op.responses[answer.status]?.errorCodes ?? [], `${what}: undocumented for ${op.path}`).toContain(code);
}

/**
 * Writes `raw` (a string as latin1 bytes) on a fresh socket and reads the first whole answer, or
 * with `untilClose` everything until the server closes the socket; at most `timeoutMs`.
 */
function rawExchange(port: number, raw: string | Buffer, untilClose = false, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One whole answer is enough: the server may keep the connection open.
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, head));
      if (!untilClose && head >= 0 && length && text.length >= head + 4 + Number(length[1])) done();
    });
    socket.on('end', done);
    socket.on('error', (err) => (chunks.length ? done() : reject(err)));
    socket.write(typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw);
  });
}

function parseRawAnswer(text: string): Answer {
  const head = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, head).split('\r\n');
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: text.slice(head + 4) };
}

// ---- the server --------------------------------------------------------------------------------

describe('API fuzz: any request gets a non-5xx answer, errors in the 7.1 format', () => {
  const dataDir = tempDataDir('api-fuzz');
  let server: RunningServer;
  let origin: URL;
  // The server's clock: each fuzzed request moves it (mostly a second, so the per-second windows
  // reopen; sometimes not at all, so the free plan's one request per second answers 429).
  let now = new Date();
  const keys = {} as Record<KeyName, string>;

  beforeAll(async () => {
    // One trusted proxy hop, so the fuzzed X-Forwarded-For values become the client address that
    // IP allowlists and per-IP limits read.
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', TRUST_PROXY_HOPS: '1' }), silentLogger, { now: () => now });
    const files: [string, ImportKind][] = [['transfers.csv', 'transfers'], ['agents.csv', 'agents'], ['feedback.jsonl', 'feedback']];
    for (const [file, kind] of files) await importFile({ store: server.store, log: silentLogger }, { file: path.join(importFixtures, file), kind, onBadRows: 'skip' });
    await (await server.jobs.run('score', {})).done;
    const [run] = await server.store.read(`SELECT strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS t FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    now = new Date(Date.parse(String(run!.t)) + 60_000);

    for (const plan of planNames) keys[plan] = (await createAccount(server.store, { plan }, server.keys)).api_key;
    // An enterprise key whose IP allowlist leaves out loopback: 403 ip_not_allowed.
    const blocked = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    const [change] = await changeIpAllowlist(server.store, { accountId: blocked.id }, ['203.0.113.0/24']);
    server.keys.setIpAllowlist(change!.key_id, change!.allowlist);
    keys.enterprise_blocked = blocked.api_key;
    // A cancelled account: the row and the in-memory index both say so (as after a restart).
    const cancelled = await createAccount(server.store, { plan: 'starter' }, server.keys);
    await server.store.write((tx) => tx.run(`UPDATE accounts SET status = 'cancelled' WHERE id = $1`, [cancelled.id]));
    const verified = server.keys.verify(cancelled.api_key);
    if (verified.valid) server.keys.add(sha256Hex(cancelled.api_key), { ...verified.owner, status: 'cancelled' });
    keys.cancelled = cancelled.api_key;

    origin = new URL(server.url);
  }, 120_000);
  afterAll(() => server?.close());

  const keyHeaders = (choice: KeyChoice): Record<string, string | string[]> => {
    if (choice.kind === 'none') return {};
    if (choice.kind === 'literal') return { 'X-API-Key': choice.value };
    const key = keys[choice.name];
    const value = { 'as is': key, upper: key.toUpperCase(), truncated: key.slice(0, -1), twice: [key, key], padded: ` ${key}\t` }[choice.variant];
    return { 'X-API-Key': value };
  };

  const fire = async (req: FuzzRequest): Promise<Answer> => {
    now = new Date(now.getTime() + req.tick);
    const answer = await send(origin, req, keyHeaders(req.key));
    checkAnswer(req, answer);
    return answer;
  };

  /** Sends `numRuns` requests of `arb` (FUZZ_RUNS overrides), each checked by checkAnswer. */
  const fuzz = (arb: fc.Arbitrary<FuzzRequest>, numRuns: number) =>
    fc.assert(fc.asyncProperty(arb, async (req) => void (await fire(req))), { seed, numRuns: process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : numRuns });

  const tickArb = fc.constantFrom(1_000, 1_000, 1_000, 0);
  const segmentArb = fc.tuple(fc.oneof(addressArb, unicodeJunk, percentJunk, fc.constantFrom('v1', 'api', 'reputation', 'reputation:batch', 'agents', 'stats', '.well-known', '..', '')), encodingArb).map(([s, how]) => encode(s, how));

  const withParams = operations.filter((op) => op.path.includes('{'));
  const withBody = operations.filter((op) => op.request.body);
  const plainGets = operations.filter((op) => op.method === 'get' && !op.path.includes('{'));

  it('fuzzes every operation of the OpenAPI list', () => {
    const fuzzed = operations.map((op) => `${op.method.toUpperCase()} ${op.path}`);
    for (const expected of ['GET /v1/reputation/{address}', 'POST /v1/reputation:batch', 'GET /v1/stats', 'GET /v1/agents', 'GET /health', 'GET /.well-known/reputation-signing-key', 'GET /api/v1/x402/browse']) {
      expect(fuzzed).toContain(expected);
    }
    expect(withParams.length && withBody.length && plainGets.length).toBeGreaterThan(0);
  });

  it('every operation: random parameters, queries, methods, keys, headers and bodies', async () => {
    const requestArb = fc
      .constantFrom(...operations)
      .chain((op) => fc.record({
        op: fc.constant(op),
        param: fc.tuple(addressArb, encodingArb),
        otherMethod: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: methodArb }),
        query: queryArbOf(queryNamesOf(op)),
        key: keyArb,
        headers: headersArb,
        contentType: contentTypeArb,
        body: fc.option(bodyArb, { freq: 2 }),
        chunked: fc.boolean(),
        tick: tickArb,
      }))
      .map(({ op, param: [param, how], otherMethod, query, ...rest }): FuzzRequest => {
        const method = otherMethod ?? op.method.toUpperCase();
        const body = method === 'GET' || method === 'HEAD' ? undefined : rest.body ?? undefined;
        return { ...rest, method, body, path: fillPath(op.path, encode(param, how)) + query, documented: otherMethod === null && how === 'component' && param ? op.operationId : undefined };
      });
    await fuzz(requestArb, 800);
  }, longSearch);

  it('operations with a path parameter (GET /v1/reputation/{address}): addresses of every kind, their query parameters', async () => {
    const requestArb = fc
      .constantFrom(...withParams)
      .chain((op) => fc.record({ op: fc.constant(op), address: addressArb, how: encodingArb, query: queryArbOf(queryNamesOf(op)), key: keyArb, headers: headersArb, tick: tickArb }))
      .map(({ op, address, how, query, ...rest }): FuzzRequest => ({
        ...rest,
        method: op.method.toUpperCase(),
        chunked: false,
        path: fillPath(op.path, encode(address, how)) + query,
        documented: how === 'component' && address ? op.operationId : undefined,
      }));
    await fuzz(requestArb, 400);
  }, longSearch);

  it('operations with a body (POST /v1/reputation:batch): random JSON and non-JSON bodies, content types, encodings, sizes', async () => {
    const requestArb = fc
      .record({
        op: fc.constantFrom(...withBody),
        body: bodyArb,
        contentType: fc.oneof({ weight: 3, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentTypeArb }),
        key: fc.oneof({ weight: 4, arbitrary: fc.constantFrom<KeyChoice>(...(['starter', 'growth', 'scale', 'pro', 'enterprise'] as const).map((name) => ({ kind: 'named' as const, name, variant: 'as is' as const }))) }, { weight: 1, arbitrary: keyArb }),
        headers: headersArb,
        query: fc.oneof(fc.constant(''), queryArb),
        // A compressed body is inflated before the 32 kB limit applies.
        encoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'identity'),
        chunked: fc.boolean(),
        tick: tickArb,
      })
      .map(({ op, query, encoding, body, headers, ...rest }): FuzzRequest => ({
        ...rest,
        method: op.method.toUpperCase(),
        path: `${op.path}${query}`,
        documented: op.operationId,
        body: encoding ? compress(body, encoding) : body,
        headers: encoding ? { ...headers, 'Content-Encoding': encoding } : headers,
      }));
    await fuzz(requestArb, 300);
  }, longSearch);

  it('GET operations without a parameter (/v1/agents, /v1/stats, legacy, health, ...): every filter, cursors, offsets, limits', async () => {
    const requestArb = fc
      .constantFrom(...plainGets)
      .chain((op) => fc.record({ op: fc.constant(op), query: queryArbOf(queryNamesOf(op)), key: keyArb, headers: headersArb, tick: tickArb }))
      .map(({ op, query, ...rest }): FuzzRequest => ({ ...rest, method: 'GET', chunked: false, path: `${op.path}${query}`, documented: op.operationId }));
    await fuzz(requestArb, 400);
  }, longSearch);

  it('unknown paths and random methods', async () => {
    const requestArb = fc
      .record({
        segments: fc.array(segmentArb, { maxLength: 6 }),
        prefix: fc.constantFrom('', '/v1', '/api/v1', '/v1/reputation', '//', '/v1/reputation:batch'),
        method: methodArb,
        query: queryArb,
        key: keyArb,
        headers: headersArb,
        body: fc.option(bodyArb, { freq: 3, nil: undefined }),
        tick: tickArb,
      })
      .map(({ segments, prefix, method, body, ...rest }): FuzzRequest => ({
        ...rest,
        method,
        chunked: false,
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
        path: `${prefix}/${segments.join('/')}${rest.query}`,
      }));
    await fuzz(requestArb, 400);
  }, longSearch);

  it('the free plan is rate limited in the fuzz too (429 rate_limited in the 7.1 format)', async () => {
    const req: FuzzRequest = { method: 'GET', path: `/v1/reputation/${knownAddresses[0]}`, key: { kind: 'named', name: 'free', variant: 'as is' }, headers: {}, chunked: false, tick: 1_000 };
    const statuses = [(await fire(req)).status, (await fire({ ...req, tick: 0 })).status];
    expect(statuses).toEqual([200, 429]);
  });

  // Inputs the fuzz found, kept as plain tests.
  describe('regressions', () => {
    const plain = (method: string, path: string, headers: Record<string, string> = {}): FuzzRequest => ({ method, path, key: { kind: 'named', name: 'enterprise', variant: 'as is' }, headers, chunked: false, tick: 1_000 });

    it('an Expect header other than 100-continue is served, not answered 417 without a body', async () => {
      expect((await fire(plain('GET', '/health', { Expect: '*/*' }))).status).toBe(200);
      expect((await fire(plain('GET', `/v1/reputation/${knownAddresses[0]}`, { Expect: '' }))).status).toBe(200);
    });

    it('a gzip bomb is refused 413 once inflated past the limit', async () => {
      const bomb = zlib.gzipSync(Buffer.from(`{"addresses": [${' '.repeat(5_000_000)}]}`));
      const answer = await fire({ ...plain('POST', '/v1/reputation:batch', { 'Content-Encoding': 'gzip' }), contentType: 'application/json', body: bomb });
      expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([413, 'payload_too_large']);
    });

    it('a 405 names the methods the path takes in Allow', async () => {
      for (const [method, path, allow] of [['POST', `/v1/reputation/${knownAddresses[0]}`, 'HEAD, GET'], ['DELETE', '/health', 'HEAD, GET'], ['GET', '/v1/reputation:batch', 'POST'], ['PROPFIND', '/v1/stats', 'HEAD, GET']]) {
        const answer = await fire(plain(method!, path!));
        expect([answer.status, JSON.parse(answer.body).error.code, answer.headers.allow], `${method} ${path}`).toEqual([405, 'method_not_allowed', allow]);
      }
    });

    it('HEAD with a path byte the parser refuses: 400 without a body, so the client can read it', async () => {
      expect((await fire(plain('HEAD', '/\xa0'))).status).toBe(400);
    });
  });

  describe('raw sockets', () => {
    const rawRequest = async (raw: string | Buffer) => {
      const answer = parseRawAnswer(await rawExchange(Number(origin.port), raw));
      checkAnswer({ method: 'RAW', path: String(raw).slice(0, 80), key: { kind: 'none' }, headers: {}, chunked: false, tick: 0 }, answer);
      return answer;
    };
    const code = (answer: Answer) => (JSON.parse(answer.body) as { error: { code: string } }).error.code;

    it('malformed URLs reach Koa and get 404 or 400 in the 7.1 format', async () => {
      expect(code(await rawRequest('GET /% HTTP/1.1\r\nHost: x\r\n\r\n'))).toBe('not_found');
      const bad = await rawRequest(`GET /v1/reputation/%E0%A4%A HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys.enterprise}\r\n\r\n`);
      expect([bad.status, code(bad)]).toEqual([400, 'invalid_address']);
      const query = await rawRequest(`GET /v1/agents?limit=%E0%A4%A&cursor=%%% HTTP/1.1\r\nHost: x\r\nX-API-Key: ${keys.enterprise}\r\n\r\n`);
      expect([query.status, code(query)]).toEqual([400, 'bad_request']);
    });

    it('HTTP/1.0 without Host, an absolute-form target and pipelined requests are served', async () => {
      expect((await rawRequest('GET /health HTTP/1.0\r\n\r\n')).status).toBe(200);
      expect((await rawRequest('GET http://example.com/health HTTP/1.1\r\nHost: example.com\r\n\r\n')).status).toBe(200);
      const two = await rawExchange(Number(origin.port), 'GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', true);
      expect(two.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 404']);
    });

    it('what Node’s HTTP parser refuses is answered in the 7.1 format too', async () => {
      const cases: [string, number, string][] = [
        ['FOO /health HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'method_not_allowed'],
        [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`, 400, 'bad_request'],
        ['hello\r\n\r\n', 405, 'method_not_allowed'],
        ['GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'bad_request'],
        ['GET /health HTTP/1.1\r\n\r\n', 400, 'bad_request'],
        ['GET /health HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n', 400, 'bad_request'],
        ['GET /health HTTP/9.9\r\nHost: x\r\n\r\n', 400, 'bad_request'],
        ['GET /he\u0001alth HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
        ['POST /v1/reputation:batch HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!', 400, 'bad_request'],
        ['POST /v1/reputation:batch HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 400, 'bad_request'],
      ];
      for (const [raw, status, expected] of cases) {
        const answer = await rawRequest(raw);
        expect([answer.status, code(answer)], raw.slice(0, 40)).toEqual([status, expected]);
      }
    });

    // RFC 9112: 400 for an HTTP/1.1 request without Host; the connection is closed after it, so a
    // request pipelined behind it is never served.
    it('an HTTP/1.1 request without Host: 400 with Connection: close, and nothing after it served', async () => {
      const text = await rawExchange(Number(origin.port), 'GET /health HTTP/1.1\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n', true);
      expect(text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 400']);
      const answer = parseRawAnswer(text);
      checkAnswer({ method: 'RAW', path: '/health', key: { kind: 'none' }, headers: {}, chunked: false, tick: 0 }, answer);
      expect([code(answer), answer.headers.connection]).toEqual(['bad_request', 'close']);
      // Refused, not served as well: a keyed lookup without Host is not counted against the quota.
      const lookup: FuzzRequest = { method: 'GET', path: `/v1/reputation/${knownAddresses[0]}`, key: { kind: 'named', name: 'starter', variant: 'as is' }, headers: {}, chunked: false, tick: 1_000 };
      const used = Number((await fire(lookup)).headers['x-quota-used']);
      expect((await rawRequest(`GET ${lookup.path} HTTP/1.1\r\nX-API-Key: ${keys.starter}\r\n\r\n`)).status).toBe(400);
      expect(Number((await fire(lookup)).headers['x-quota-used'])).toBe(used + 1);
    });

    it('a HEAD request the parser refuses gets its status without a body', async () => {
      const answer = parseRawAnswer(await rawExchange(Number(origin.port), 'HEAD /\xa0 HTTP/1.1\r\nHost: x\r\n\r\n'));
      expect(answer.status).toBe(400);
      expect(Number(answer.headers['content-length'])).toBeGreaterThan(0);
      expect(answer.body).toBe('');
    });

    it('CONNECT, Upgrade and an unknown Expect get 7.1 answers, not a dropped connection', async () => {
      const connect = await rawRequest('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      expect([connect.status, code(connect)]).toEqual([405, 'method_not_allowed']);
      const upgrade = await rawRequest('GET /health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
      expect(upgrade.status).toBeLessThan(500);
      const expectation = await rawRequest('GET /health HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n');
      expect(expectation.status).toBe(200);
    });
  });
});
