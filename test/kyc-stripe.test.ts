// Stripe Identity (KYC_PROVIDER=stripe) end to end over real HTTP: the service, through the
// official `stripe` package pointed at a local server speaking Stripe's protocol
// (helpers/stripe-identity-server.ts), with signed webhooks back to POST /webhooks/stripe and the
// name screening against the real tiny SDN list. The outcomes a person reaches on the hosted page
// (verified, failed and retried, sanctioned, under 18), the deliveries refused (forged, stale) or
// acknowledged without effect (replayed, late, without a result), and what never reaches the
// tables or the logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { loadConfig } from '../pipeline/config.ts';
import { createLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { pruneSessions } from '../identity/sessions.ts';
import { createAccount } from '../api/accounts.ts';
import { readSession } from '../identity/sessions.ts';
import { createStripeProvider } from '../identity/kyc/stripe.ts';
import { tempDataDir } from './helpers/temp.ts';
import { newSession, poll, sdnTinyCsv, type CreatedSession } from './helpers/identity.ts';
import { startStripeIdentityServer, type IdentityDocument, type StripeIdentityServer } from './helpers/stripe-identity-server.ts';

// A restricted key, as reading dates of birth needs; the fake also knows a plain secret key.
const restrictedKey = 'rk_test_kycStripeRestricted0001';
const secretKey = 'sk_test_kycStripeSecret0001';
const webhookSecret = 'whsec_kycStripeEndpoint0001';
const createPath = /^\/v1\/identity\/verification_sessions$/;

const margaret: IdentityDocument = { firstName: 'Margaret', lastName: 'Whitfield', dob: { day: 12, month: 4, year: 1990 }, issuingCountry: 'DE' };

describe('Stripe Identity over HTTP', () => {
  const dataDir = tempDataDir('kyc-stripe');
  const lines: string[] = [];
  let fake: StripeIdentityServer;
  let server: RunningServer;
  let apiKey: string;
  // Each request to the verify page and the poll from its own client address, so the per-address
  // limits (5 a second on /verify, 30 polls a minute) never decide a test here.
  let clientAddress = 0;
  const client = () => ({ 'X-Forwarded-For': `198.51.100.${++clientAddress}` });

  beforeAll(async () => {
    fake = await startStripeIdentityServer({ keys: [restrictedKey, secretKey], webhookSecret });
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      TRUST_PROXY_HOPS: '1',
      SANCTIONS_LIST_SOURCE: sdnTinyCsv,
      KYC_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: restrictedKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_API_BASE: fake.url,
    });
    server = await startServer(config, createLogger('test', (line) => lines.push(line)));
    fake.webhookUrl = `${server.url}/webhooks/stripe`;
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    apiKey = (await createAccount(server.store, { plan: 'pro', name: 'Acme Data Co' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  /** GET /verify/{id}/start, not followed. */
  const start = async (session: CreatedSession) => {
    const res = await fetch(`${session.verify_url}/start`, { redirect: 'manual', headers: client() });
    return { status: res.status, location: res.headers.get('location') };
  };
  const pollOnce = (session: CreatedSession) => poll(session.poll_url, session.poll_secret, client());
  /** A session started on the page: its Stripe VerificationSession and hosted URL. */
  const started = async () => {
    const session = await newSession(server.url, apiKey);
    const { location } = await start(session);
    return { session, hostedUrl: location!, vsId: fake.latestFor(session.session_id)! };
  };
  const stored = async (id: string) => (await server.store.read('SELECT * FROM verification_sessions WHERE id = ?', [id]))[0];
  const operators = () => server.store.read('SELECT * FROM operators ORDER BY id');

  it('verified: start, the hosted page, the signed webhook, then the token in exactly one poll', async () => {
    const session = await newSession(server.url, apiKey);
    const creates = fake.count('POST', createPath);
    const redirect = await start(session);
    expect(redirect.status).toBe(303);
    expect(redirect.location!.startsWith(`${fake.url}/start/`)).toBe(true);
    expect(fake.count('POST', createPath)).toBe(creates + 1);
    expect(fake.requests.at(-1)!.params).toMatchObject({
      type: 'document',
      options: { document: { require_matching_selfie: 'true' } },
      metadata: { session_id: session.session_id },
      client_reference_id: session.session_id,
      return_url: session.verify_url,
    });
    const vsId = fake.latestFor(session.session_id)!;

    const page = await fetch(redirect.location!);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<form method="post"');
    expect(html).not.toContain('<script');
    const submitted = await fetch(redirect.location!, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ outcome: 'verified', first_name: 'Margaret', last_name: 'Whitfield', dob: '1990-04-12', issuing_country: 'de' }),
    });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.get('location')).toBe(session.verify_url);
    expect(fake.deliveries.slice(-2).map((d) => [d.event.type, d.status])).toEqual([
      ['identity.verification_session.processing', 200],
      ['identity.verification_session.verified', 200],
    ]);
    // The verified outputs were asked for with the date of birth expanded by name.
    const retrieve = fake.requests.findLast((r) => r.method === 'GET' && r.path === `/v1/identity/verification_sessions/${vsId}`)!;
    expect(retrieve.params.expand).toEqual(['verified_outputs', 'verified_outputs.dob', 'last_verification_report']);

    const first = await pollOnce(session);
    expect(first.body.status).toBe('verified');
    expect(first.body.operator_token).toMatch(/^opc_/);
    const second = await pollOnce(session);
    expect(second.body.status).toBe('consumed');
    expect(second.body.operator_token).toBeUndefined();

    const row = await readSession(server.store, session.session_id);
    expect(row!.providerRef).toBe(vsId);
    expect(server.identity.deps.state.operators.get(row!.operatorId!)).toMatchObject({
      kycProvider: 'stripe',
      jurisdiction: 'DE',
      ageVerified: true,
      ageBracket: '21+',
      operatorType: 'individual',
      sanctionsResult: 'clear',
    });
  });

  it('a reload continues the open VerificationSession; once submitted it sends the user back to wait', async () => {
    const { session, hostedUrl, vsId } = await started();
    const creates = fake.count('POST', createPath);
    const reload = await start(session);
    expect(reload.status).toBe(303);
    // A fresh hosted URL of the same VerificationSession (each URL works once).
    expect(reload.location).not.toBe(hostedUrl);
    expect(reload.location!.startsWith(`${fake.url}/start/`)).toBe(true);
    expect(fake.latestFor(session.session_id)).toBe(vsId);
    expect(fake.count('POST', createPath)).toBe(creates);

    // Submitted; Stripe's events not in yet.
    const { events } = await fake.complete(vsId, { outcome: 'verified', document: margaret }, { deliver: false });
    const waiting = await start(session);
    expect(waiting).toEqual({ status: 303, location: session.verify_url });
    expect(fake.count('POST', createPath)).toBe(creates);
    for (const event of events) expect((await fake.send(event)).status).toBe(200);
    expect((await pollOnce(session)).body.status).toBe('verified');
  });

  it('failed: the vendor code in the poll; a retry makes a new VerificationSession, and a late result for the old one changes nothing', async () => {
    const { session, vsId: first } = await started();
    const failed = await fake.complete(first, { outcome: 'failed', code: 'selfie_face_mismatch' });
    expect(failed.deliveries.map((d) => d.body.applied)).toEqual([false, true]);
    const polled = await pollOnce(session);
    expect(polled.body).toMatchObject({ status: 'failed', failure_code: 'selfie_face_mismatch', next_steps: { action: 'verification_failed' } });

    const retry = await start(session);
    expect(retry.status).toBe(303);
    expect(retry.location!.startsWith(`${fake.url}/start/`)).toBe(true);
    const second = fake.latestFor(session.session_id)!;
    expect(second).not.toBe(first);
    expect(await stored(session.session_id)).toMatchObject({ status: 'pending', provider_ref: second, attempts: 2 });

    // The failed VerificationSession is canceled at Stripe; its canceled event, and a result for it
    // arriving late (sent as Stripe would have for the old attempt), change nothing.
    expect(fake.session(first)?.status).toBe('canceled');
    const before = { session: await stored(session.session_id), operators: await operators() };
    const canceled = await fake.send(fake.event('identity.verification_session.canceled', first));
    const lateVerified = await fake.send({ ...fake.event('identity.verification_session.verified', first), id: 'evt_lateVerifiedForOldAttempt' });
    expect([canceled, lateVerified].map((d) => [d.status, d.body.applied])).toEqual([[200, false], [200, false]]);
    expect({ session: await stored(session.session_id), operators: await operators() }).toEqual(before);

    await fake.complete(second, { outcome: 'verified', document: margaret });
    expect((await pollOnce(session)).body.status).toBe('verified');
  });

  it('two starts at once (a double click, two tabs) lead to one VerificationSession, whose result applies', async () => {
    const session = await newSession(server.url, apiKey);
    const creates = fake.count('POST', createPath);
    const [a, b] = await Promise.all([start(session), start(session)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    const vsId = fake.latestFor(session.session_id)!;
    // Both went to the hosted page of that one VerificationSession.
    for (const location of [a.location!, b.location!]) expect(location.startsWith(`${fake.url}/start/`)).toBe(true);
    expect(fake.count('POST', createPath) - creates).toBeLessThanOrEqual(2);
    expect(await stored(session.session_id)).toMatchObject({ provider_ref: vsId, attempts: 1 });
    await fake.complete(vsId, { outcome: 'verified', document: margaret });
    expect((await pollOnce(session)).body.status).toBe('verified');
    // The two creates carried one idempotency key: Stripe made one VerificationSession of them.
    const keys = fake.requests.filter((r) => r.method === 'POST' && createPath.test(r.path) && (r.params.metadata as { session_id?: string })?.session_id === session.session_id).map((r) => r.idempotencyKey);
    expect(new Set(keys)).toEqual(new Set([`${session.session_id}:attempt-1`]));
  });

  it('no attempt left: the start link creates nothing at Stripe and leads back to the page', async () => {
    const { session, vsId } = await started();
    await fake.complete(vsId, { outcome: 'failed', code: 'document_expired' });
    for (let i = 0; i < 2; i++) {
      await start(session);
      await fake.complete(fake.latestFor(session.session_id)!, { outcome: 'failed', code: 'document_expired' });
    }
    expect(await stored(session.session_id)).toMatchObject({ status: 'failed', attempts: 3 });
    const creates = fake.count('POST', createPath);
    const refused = await start(session);
    expect([refused.status, refused.location]).toEqual([303, `/verify/${session.session_id}`]);
    expect(fake.count('POST', createPath)).toBe(creates);
  });

  it('a failure whose webhook has not come in yet still counts as an attempt when a new VerificationSession replaces it', async () => {
    const { session, vsId } = await started();
    await fake.complete(vsId, { outcome: 'failed', code: 'selfie_face_mismatch' }, { deliver: false });
    await start(session);
    expect(fake.latestFor(session.session_id)).not.toBe(vsId);
    expect(await stored(session.session_id)).toMatchObject({ status: 'pending', attempts: 2 });
  });

  it('a result for a session this service does not have (another environment on the account): 200, nothing applied', async () => {
    const { vsId } = await started();
    const foreign = fake.event('identity.verification_session.verified', vsId);
    const object = foreign.data.object as { metadata: Record<string, string> };
    object.metadata = { ...object.metadata, session_id: 'sess_fromAnotherEnvironment1' };
    const delivery = await fake.send({ ...foreign, id: 'evt_foreignSession' });
    expect([delivery.status, delivery.body]).toEqual([200, { received: true, applied: false }]);
  });

  it('refuses a body past 256 kB with 413 before reading it as an event', async () => {
    const res = await fetch(`${server.url}/webhooks/stripe`, { method: 'POST', headers: { 'Stripe-Signature': 't=1,v1=00' }, body: 'x'.repeat(300 * 1024) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('payload_too_large');
  });

  it('HEAD on the start link is refused (405): it would start a verification at Stripe', async () => {
    const session = await newSession(server.url, apiKey);
    const creates = fake.count('POST', createPath);
    const res = await fetch(`${session.verify_url}/start`, { method: 'HEAD', headers: client() });
    expect([res.status, res.headers.get('allow')]).toEqual([405, 'GET']);
    expect(fake.count('POST', createPath)).toBe(creates);
  });

  it('a name on the SDN list, born in a year the entry lists: flagged, its operator a hit', async () => {
    // MORENO, Daniel: DOB 12 Oct 1972 (sdn-tiny); a document may give another day of that year.
    const { session, vsId } = await started();
    await fake.complete(vsId, { outcome: 'verified', document: { firstName: 'Daniel', lastName: 'MORENO', dob: { day: 3, month: 2, year: 1972 }, issuingCountry: 'BZ' } });
    const polled = await pollOnce(session);
    expect(polled.body.status).toBe('flagged');
    expect(polled.body.operator_token).toBeUndefined();
    const row = await readSession(server.store, session.session_id);
    expect(server.identity.deps.state.operators.get(row!.operatorId!)).toMatchObject({ jurisdiction: 'BZ', sanctionsResult: 'hit', sanctionsSdnUid: '15102' });
  });

  it("a name on the SDN list, born in a year the entry does not list: Stripe's year of birth sets the match aside, verified", async () => {
    const { session, vsId } = await started();
    await fake.complete(vsId, { outcome: 'verified', document: { firstName: 'Daniel', lastName: 'MORENO', dob: { day: 3, month: 2, year: 1975 }, issuingCountry: 'BZ' } });
    const polled = await pollOnce(session);
    expect(polled.body.status).toBe('verified');
    const row = await readSession(server.store, session.session_id);
    expect(server.identity.deps.state.operators.get(row!.operatorId!)).toMatchObject({ jurisdiction: 'BZ', sanctionsResult: 'clear' });
  });

  it('under 18: verified, with age_verified false and no bracket', async () => {
    const { session, vsId } = await started();
    const dob = { day: 1, month: 1, year: new Date().getUTCFullYear() - 16 };
    await fake.complete(vsId, { outcome: 'verified', document: { ...margaret, dob } });
    const polled = await pollOnce(session);
    expect(polled.body.status).toBe('verified');
    expect(polled.body.operator_token).toMatch(/^opc_/);
    const row = await readSession(server.store, session.session_id);
    expect(server.identity.deps.state.operators.get(row!.operatorId!)).toMatchObject({ ageVerified: false, ageBracket: null });
  });

  it('a verified document without a date of birth or a known issuing country fails with our code', async () => {
    for (const [document, code] of [
      [{ ...margaret, dob: null }, 'dob_unavailable'],
      [{ ...margaret, dob: { day: 31, month: 2, year: 1990 } }, 'dob_unavailable'],
      [{ ...margaret, issuingCountry: null }, 'issuing_country_unavailable'],
      [{ ...margaret, issuingCountry: 'XX' }, 'issuing_country_unavailable'],
    ] as const) {
      const { session, vsId } = await started();
      await fake.complete(vsId, { outcome: 'verified', document });
      expect((await pollOnce(session)).body).toMatchObject({ status: 'failed', failure_code: code });
    }
  });

  it('canceled at Stripe: failed with canceled', async () => {
    const { session, vsId } = await started();
    await fake.complete(vsId, { outcome: 'canceled' });
    expect((await pollOnce(session)).body).toMatchObject({ status: 'failed', failure_code: 'canceled' });
  });

  it('refuses a forged, unsigned or stale delivery with 400 and changes nothing; acknowledges a replay and changes nothing', async () => {
    const { session, vsId } = await started();
    const { events } = await fake.complete(vsId, { outcome: 'verified', document: margaret }, { deliver: false });
    const verified = events.at(-1)!;
    const state = async () => ({ session: await stored(session.session_id), operators: await operators(), events: await server.store.read('SELECT * FROM kyc_webhook_events ORDER BY event_id') });
    const before = await state();

    const forged = await fake.send(verified, { secret: 'whsec_notThisEndpointsSecret' });
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('bad_request');
    expect(forged.body.error.message).toContain('STRIPE_WEBHOOK_SECRET');
    const stale = await fake.send(verified, { timestamp: Math.floor(Date.now() / 1000) - 301 - 60 });
    expect(stale.status).toBe(400);
    expect(stale.body.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('more than 300 s old') });
    const unsigned = await fetch(fake.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(verified) });
    expect(unsigned.status).toBe(400);
    expect(((await unsigned.json()) as any).error.code).toBe('bad_request');
    expect(await state()).toEqual(before);

    const applied = await fake.send(verified);
    expect(applied).toMatchObject({ status: 200, body: { received: true, applied: true } });
    const after = await state();
    expect(after.session!.status).toBe('verified');
    // The same bytes and signature again, and a redelivery signed anew: acknowledged, nothing changes.
    expect(await fake.send(verified, { header: applied.header })).toMatchObject({ status: 200, body: { applied: false } });
    expect(await fake.send(verified)).toMatchObject({ status: 200, body: { applied: false } });
    expect(await state()).toEqual(after);
  });

  it('acknowledges events without a result and changes nothing: lifecycle events, an open VerificationSession, one made by something else', async () => {
    const { session, vsId } = await started();
    const before = await stored(session.session_id);
    for (const type of ['identity.verification_session.created', 'identity.verification_session.processing', 'identity.verification_session.redacted', 'identity.verification_session.requires_input']) {
      expect(await fake.send(fake.event(type, vsId))).toMatchObject({ status: 200, body: { applied: false } });
    }
    const foreign = fake.event('identity.verification_session.canceled', vsId);
    foreign.data.object.metadata = {};
    expect(await fake.send(foreign)).toMatchObject({ status: 200, body: { applied: false } });
    expect(await fake.send({ ...fake.event('customer.created', vsId), data: { object: { id: 'cus_1', object: 'customer' } } })).toMatchObject({ status: 200, body: { applied: false } });
    expect(await stored(session.session_id)).toEqual(before);
  });

  it('says what to do when the key cannot read dates of birth (a secret key, not a restricted one)', async () => {
    const provider = createStripeProvider({ secretKey, webhookSecret, apiBase: fake.url });
    const { providerRef } = await provider.start({ id: 'sess_secretKeyCheck', providerRef: null, returnUrl: `${server.url}/verify/sess_secretKeyCheck`, attempt: 1, mayCreate: true });
    const { events } = await fake.complete(providerRef, { outcome: 'verified', document: margaret }, { deliver: false });
    const payload = JSON.stringify(events.at(-1));
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    await expect(provider.receiveWebhook(Buffer.from(payload), header)).rejects.toThrow(/STRIPE_SECRET_KEY must be a restricted key \(rk_…\)/);
  });

  it('keeps the name, date of birth, address and numbers Stripe returned out of every table and every log line', async () => {
    const person: IdentityDocument = {
      firstName: 'Quillon',
      lastName: 'Vexbridge-Amaranth',
      dob: { day: 23, month: 7, year: 1987 },
      issuingCountry: 'NL',
      address: { line1: '17 Zephyrine Lane', line2: 'Flat 9Q', city: 'Oostmarrow', state: null, postal_code: '4821 XQ', country: 'NL' },
      idNumber: '998-41-7306',
      documentNumber: 'NQ7Z41K08',
    };
    const { session, vsId } = await started();
    await fake.complete(vsId, { outcome: 'verified', document: person });
    expect((await pollOnce(session)).body.status).toBe('verified');
    // Stripe did hand them over.
    const returned = JSON.stringify(fake.session(vsId));
    for (const value of ['Vexbridge-Amaranth', '"year":1987', 'Zephyrine', '998-41-7306', 'NQ7Z41K08']) expect(returned).toContain(value);

    const needles = ['quillon', 'vexbridge', 'amaranth', '1987-07-23', '23.07.1987', '07/23/1987', 'zephyrine', 'flat 9q', 'oostmarrow', '4821 xq', '998-41-7306', '998417306', 'nq7z41k08'];
    const columns = await server.store.read(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE t.table_type = 'BASE TABLE' AND c.data_type IN ('VARCHAR', 'JSON')`,
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`)).toEqual(expect.arrayContaining(['operators.jurisdiction', 'verification_sessions.failure_code']));
    const found: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const matches = needles.map((n) => `contains(lower("${column}"), '${n}')`).join(' OR ');
      const [row] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM "${table}" WHERE ${matches}`);
      if (Number(row!.n) > 0) found.push(`${table}.${column}`);
    }
    expect(found).toEqual([]);
    expect(lines.some((line) => line.includes('verification result applied'))).toBe(true);
    expect(lines.filter((line) => needles.some((n) => line.toLowerCase().includes(n)))).toEqual([]);
  });
  it('prune-sessions deletes the webhook deliveries seen more than SESSION_RETENTION_DAYS ago, and no newer one', async () => {
    const seen = async () => Number((await server.store.read('SELECT count(*)::INTEGER AS n FROM kyc_webhook_events'))[0]!.n);
    const before = await seen();
    expect(before).toBeGreaterThan(0);
    expect((await pruneSessions(server.store, 30, new Date())).webhookEvents).toBe(0);
    expect((await pruneSessions(server.store, 30, new Date(Date.now() + 31 * 86_400_000))).webhookEvents).toBe(before);
    expect(await seen()).toBe(0);
  });
});
