// A local stand-in for Stripe Identity on 127.0.0.1, speaking the part of Stripe's protocol the
// `stripe` package uses for identity/kyc/stripe.ts, as Stripe documents it:
//   POST /v1/identity/verification_sessions              create (form-encoded, as the SDK sends it)
//   GET  /v1/identity/verification_sessions/{id}         retrieve, expand[] in the query
//   POST /v1/identity/verification_sessions/{id}/cancel  cancel (only requires_input)
// with Bearer auth, Stripe's error body ({error: {type, code?, param?, message}}), POSTs replayed
// by Idempotency-Key, verified_outputs and last_verification_report only when expanded, the
// sensitive fields (dob, id_number, the document's number) only when expanded by name and only to
// a restricted key (rk_…; others get Stripe's 403), and a fresh single-use hosted URL in every
// answer about an open VerificationSession (VS).
//
// At the hosted URL a plain HTML form (no script) lets a tester pass the verification (name,
// date of birth, issuing country) or fail it (a code). The submit moves the VS as Stripe would,
// delivers the events Stripe sends (processing, then verified or requires_input) to the webhook
// URL, signed as Stripe signs them, and then redirects the browser to the VS's return_url. Unlike
// Stripe it delivers before redirecting and never redelivers, so a test knows when the result is
// in; and a cancel through the API sends no event (tests send one when they want one).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { sendJson, startLoopbackServer } from './loopback-server.ts';

export interface BirthDate {
  day: number;
  month: number;
  year: number;
}

/** What the document of a verified VS says; null where it said nothing. */
export interface IdentityDocument {
  firstName: string;
  lastName: string;
  dob: BirthDate | null;
  issuingCountry: string | null;
  address?: { line1: string; line2: string | null; city: string; state: string | null; postal_code: string; country: string };
  idNumber?: string;
  documentNumber?: string;
}

export type Outcome = { outcome: 'verified'; document: IdentityDocument } | { outcome: 'failed'; code: string } | { outcome: 'canceled' };

export interface StripeEvent {
  id: string;
  object: 'event';
  type: string;
  data: { object: Record<string, unknown> };
  [field: string]: unknown;
}

export interface Delivery {
  status: number;
  body: any;
  /** The Stripe-Signature header sent, to send again as it was (a replay). */
  header: string;
}

export interface SendOptions {
  /** Sign with another secret (a forged delivery). */
  secret?: string;
  /** Unix seconds of the signature (default now). */
  timestamp?: number;
  /** Send this Stripe-Signature header as it is (a replay of an earlier one). */
  header?: string;
}

interface FakeSession {
  id: string;
  created: number;
  type: string;
  status: 'requires_input' | 'processing' | 'verified' | 'canceled';
  metadata: Record<string, string>;
  clientReferenceId: string | null;
  returnUrl: string | null;
  options: Record<string, unknown>;
  lastError: { code: string; reason: string } | null;
  document: IdentityDocument | null;
  report: { id: string; created: number; failure: string | null } | null;
}

export interface StripeIdentityServer {
  /** `http://127.0.0.1:PORT`, the STRIPE_API_BASE. */
  url: string;
  /** Where events go: `${server.url}/webhooks/stripe`, set once the service listens. */
  webhookUrl: string;
  /** Every API request, in order, with its form-encoded parameters (body or query) parsed; hosted pages are not counted. */
  requests: { method: string; path: string; params: Record<string, unknown>; idempotencyKey?: string }[];
  /** API requests with this method whose path matches. */
  count(method: string, path: RegExp): number;
  /** Every event sent, with the answer. */
  deliveries: { event: StripeEvent; status: number }[];
  /** The VS as a restricted key sees it with everything expanded; undefined when there is none. */
  session(id: string): Record<string, unknown> | undefined;
  /** The newest VS made for `sessionId` (our sess_…). */
  latestFor(sessionId: string): string | undefined;
  /** Moves an open VS to the outcome; with `deliver` (default) sends its events and returns the answers. */
  complete(id: string, outcome: Outcome, options?: { deliver?: boolean }): Promise<{ events: StripeEvent[]; deliveries: Delivery[] }>;
  /** An event of `type` about VS `id` as it is now. */
  event(type: string, id: string): StripeEvent;
  /** Delivers `event` to webhookUrl, signed as Stripe signs (or as the options say). */
  send(event: StripeEvent, options?: SendOptions): Promise<Delivery>;
}

const sessionsPath = '/v1/identity/verification_sessions';
const sensitiveExpansions = ['verified_outputs.dob', 'verified_outputs.id_number', 'last_verification_report.document.dob', 'last_verification_report.document.number'];
const expansions = new Set(['verified_outputs', 'last_verification_report', ...sensitiveExpansions]);
/** The failure codes the hosted form offers (Stripe's last_error codes). */
export const failureCodes = ['document_unverified_other', 'document_expired', 'document_type_not_supported', 'selfie_face_mismatch', 'selfie_manipulated', 'consent_declined', 'under_supported_age'];

export async function startStripeIdentityServer(options: { keys: string[]; webhookSecret: string }): Promise<StripeIdentityServer> {
  const sessions = new Map<string, FakeSession>();
  const hostedTokens = new Map<string, string>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let origin = '';

  function hostedUrl(vs: FakeSession): string {
    const token = `test_${randomBytes(18).toString('base64url')}`;
    hostedTokens.set(token, vs.id);
    return `${origin}/start/${token}`;
  }

  function view(vs: FakeSession, expand: Set<string>): Record<string, unknown> {
    const open = vs.status === 'requires_input';
    const outputs = expand.has('verified_outputs') || expand.has('verified_outputs.dob') || expand.has('verified_outputs.id_number');
    const report = expand.has('last_verification_report') || [...expand].some((e) => e.startsWith('last_verification_report.'));
    return {
      id: vs.id,
      object: 'identity.verification_session',
      client_reference_id: vs.clientReferenceId,
      client_secret: open ? `${vs.id}_secret_${randomBytes(12).toString('base64url')}` : null,
      created: vs.created,
      last_error: vs.lastError,
      last_verification_report: vs.report ? (report ? reportView(vs, expand) : vs.report.id) : null,
      livemode: false,
      metadata: vs.metadata,
      options: vs.options,
      provided_details: null,
      redaction: null,
      related_customer: null,
      related_customer_account: null,
      status: vs.status,
      type: vs.type,
      url: open ? hostedUrl(vs) : null,
      ...(outputs ? { verified_outputs: vs.status === 'verified' && vs.document ? outputsView(vs.document, expand) : null } : {}),
    };
  }

  function outputsView(doc: IdentityDocument, expand: Set<string>): Record<string, unknown> {
    return {
      address: doc.address ?? null,
      ...(expand.has('verified_outputs.dob') ? { dob: doc.dob } : {}),
      email: null,
      first_name: doc.firstName,
      ...(expand.has('verified_outputs.id_number') ? { id_number: doc.idNumber ?? null } : {}),
      id_number_type: doc.idNumber ? 'us_ssn' : null,
      last_name: doc.lastName,
      phone: null,
    };
  }

  function reportView(vs: FakeSession, expand: Set<string>): Record<string, unknown> {
    const report = vs.report!;
    const doc = vs.document;
    const failure = report.failure ? { code: report.failure, reason: 'The verification check did not pass.' } : null;
    const selfieFailure = failure?.code.startsWith('selfie_') ? failure : null;
    const documentFailure = failure && !selfieFailure ? failure : null;
    return {
      id: report.id,
      object: 'identity.verification_report',
      client_reference_id: vs.clientReferenceId,
      created: report.created,
      document: {
        address: doc?.address ?? null,
        ...(expand.has('last_verification_report.document.dob') ? { dob: doc?.dob ?? null } : {}),
        error: documentFailure,
        files: [`file_${randomBytes(8).toString('hex')}`, `file_${randomBytes(8).toString('hex')}`],
        first_name: doc?.firstName ?? null,
        issued_date: doc ? { day: 1, month: 1, year: 2020 } : null,
        issuing_country: doc?.issuingCountry ?? null,
        last_name: doc?.lastName ?? null,
        ...(expand.has('last_verification_report.document.number') ? { number: doc?.documentNumber ?? null } : {}),
        status: documentFailure ? 'unverified' : 'verified',
        type: 'passport',
      },
      livemode: false,
      options: vs.options,
      selfie: { document: `file_${randomBytes(8).toString('hex')}`, error: selfieFailure, selfie: `file_${randomBytes(8).toString('hex')}`, status: selfieFailure ? 'unverified' : 'verified' },
      type: 'document',
      verification_session: vs.id,
    };
  }

  function event(type: string, id: string): StripeEvent {
    return {
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: Math.floor(Date.now() / 1000),
      data: { object: view(sessions.get(id)!, new Set()) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  const server: StripeIdentityServer = {
    url: '',
    webhookUrl: '',
    requests: [],
    deliveries: [],
    count: (method, path) => server.requests.filter((r) => r.method === method && path.test(r.path)).length,
    session: (id) => (sessions.has(id) ? view(sessions.get(id)!, expansions) : undefined),
    latestFor: (sessionId) => [...sessions.values()].filter((vs) => vs.metadata.session_id === sessionId).at(-1)?.id,
    event,

    async complete(id, outcome, { deliver = true } = {}) {
      const vs = sessions.get(id);
      if (!vs || vs.status !== 'requires_input') throw new Error(`VerificationSession ${id} is ${vs?.status ?? 'unknown'}, not open`);
      const events: StripeEvent[] = [];
      if (outcome.outcome === 'canceled') {
        vs.status = 'canceled';
        events.push(event('identity.verification_session.canceled', id));
      } else {
        vs.status = 'processing';
        vs.lastError = null;
        events.push(event('identity.verification_session.processing', id));
        const report = { id: `vr_${randomBytes(12).toString('hex')}`, created: Math.floor(Date.now() / 1000) };
        if (outcome.outcome === 'verified') {
          Object.assign(vs, { status: 'verified', document: outcome.document, report: { ...report, failure: null } });
          events.push(event('identity.verification_session.verified', id));
        } else {
          Object.assign(vs, { status: 'requires_input', lastError: { code: outcome.code, reason: 'The verification check did not pass.' }, report: { ...report, failure: outcome.code } });
          events.push(event('identity.verification_session.requires_input', id));
        }
      }
      const deliveries: Delivery[] = [];
      if (deliver) for (const e of events) deliveries.push(await server.send(e));
      return { events, deliveries };
    },

    async send(e, sendOptions = {}) {
      if (!server.webhookUrl) throw new Error('set webhookUrl before sending events');
      const payload = JSON.stringify(e, null, 2);
      const header =
        sendOptions.header ??
        Stripe.webhooks.generateTestHeaderString({ payload, secret: sendOptions.secret ?? options.webhookSecret, timestamp: sendOptions.timestamp ?? Math.floor(Date.now() / 1000) });
      const res = await fetch(server.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
        body: payload,
      });
      const text = await res.text();
      server.deliveries.push({ event: e, status: res.status });
      return { status: res.status, body: text ? JSON.parse(text) : null, header };
    },
  };

  // The API: Stripe's paths, auth and error shapes.
  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const params = parseForm(req.method === 'POST' ? new URLSearchParams(await readBody(req)) : url.searchParams);
    const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    server.requests.push({ method: req.method!, path: url.pathname, params, ...(idempotencyKey ? { idempotencyKey } : {}) });
    res.setHeader('request-id', `req_${randomBytes(8).toString('hex')}`);
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!key) return sendJson(res, stripeError({ message: 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.' }), 401);
    if (!options.keys.includes(key)) return sendJson(res, stripeError({ message: `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(8)}${key.slice(-4)}` }), 401);
    const replayKey = req.method === 'POST' && typeof req.headers['idempotency-key'] === 'string' ? `${key} ${req.headers['idempotency-key']}` : null;
    const answer = (replayKey ? idempotent.get(replayKey) : undefined) ?? route(req.method!, url, params, key.startsWith('rk_'));
    if (replayKey && answer.status < 500) idempotent.set(replayKey, answer);
    sendJson(res, answer.status >= 400 ? stripeError(answer.body as Record<string, unknown>) : answer.body, answer.status);
  }

  function route(method: string, url: URL, params: Record<string, unknown>, restricted: boolean): { status: number; body: unknown } {
    const [, id, action] = url.pathname.slice(sessionsPath.length).split('/');
    const expand = new Set(Array.isArray(params.expand) ? params.expand.map(String) : []);
    for (const e of expand) {
      if (!expansions.has(e)) return { status: 400, body: { message: `This property cannot be expanded (${e}).`, param: 'expand' } };
    }
    if (!restricted && [...expand].some((e) => sensitiveExpansions.includes(e))) {
      return { status: 403, body: { message: 'To access sensitive verification results, configure a restricted API key with appropriate permissions. Learn more here: https://stripe.com/docs/identity/access-verification-results.' } };
    }
    if (!url.pathname.startsWith(sessionsPath)) return unrecognized(method, url);
    if (method === 'POST' && id === undefined) return create(params, expand);
    const vs = id ? sessions.get(id) : undefined;
    if (id && !vs) return { status: 404, body: { code: 'resource_missing', param: 'session', message: `No such verification session: '${id}'` } };
    if (method === 'GET' && vs && action === undefined) return { status: 200, body: view(vs, expand) };
    if (method === 'POST' && vs && action === 'cancel') {
      if (vs.status !== 'requires_input') return { status: 400, body: { message: `You cannot cancel this VerificationSession because it has a status of ${vs.status}. Only a VerificationSession with a status of requires_input can be canceled.` } };
      vs.status = 'canceled';
      return { status: 200, body: view(vs, expand) };
    }
    return unrecognized(method, url);
  }

  function create(body: Record<string, unknown>, expand: Set<string>): { status: number; body: unknown } {
    if (body.type !== 'document' && body.type !== 'id_number') return { status: 400, body: { code: 'parameter_missing', param: 'type', message: 'Missing required param: type.' } };
    const returnUrl = typeof body.return_url === 'string' ? body.return_url : null;
    if (returnUrl !== null && !URL.canParse(returnUrl)) return { status: 400, body: { code: 'url_invalid', param: 'return_url', message: 'Not a valid URL' } };
    const vs: FakeSession = {
      id: `vs_${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      type: body.type,
      status: 'requires_input',
      metadata: stringRecord(body.metadata),
      clientReferenceId: typeof body.client_reference_id === 'string' ? body.client_reference_id : null,
      returnUrl,
      options: typeof body.options === 'object' && body.options !== null ? (body.options as Record<string, unknown>) : {},
      lastError: null,
      document: null,
      report: null,
    };
    sessions.set(vs.id, vs);
    return { status: 200, body: view(vs, expand) };
  }

  // The hosted page: GET shows the form; POST applies it once, delivers the events, redirects.
  async function hosted(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const vs = sessions.get(hostedTokens.get(token) ?? '');
    if (!vs || vs.status !== 'requires_input') return page(res, 410, '<h1>This link has expired</h1><p>Go back to the site that sent you here and start again.</p>');
    if (req.method === 'GET') return page(res, 200, hostedForm(token));
    if (req.method !== 'POST') return page(res, 405, '<h1>Method not allowed</h1>');
    const outcome = hostedOutcome(new URLSearchParams(await readBody(req)));
    if (typeof outcome === 'string') return page(res, 400, `<p>${escapeHtml(outcome)}</p>${hostedForm(token)}`);
    hostedTokens.delete(token);
    await server.complete(vs.id, outcome);
    if (!vs.returnUrl) return page(res, 200, '<h1>Thank you</h1><p>You can close this page.</p>');
    res.writeHead(303, { location: vs.returnUrl });
    res.end();
  }

  const loopback = await startLoopbackServer(async (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const start = /^\/start\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (start) return hosted(req, res, start[1]!);
    return api(req, res, url);
  });
  origin = loopback.origin;
  server.url = origin;
  return server;
}

function hostedForm(token: string): string {
  const codes = failureCodes.map((code) => `<option value="${code}">${code}</option>`).join('');
  return `<form method="post" action="/start/${token}">
<fieldset><legend><label><input type="radio" name="outcome" value="verified" checked> Verified</label></legend>
<p><label>First name <input name="first_name" value="Margaret"></label></p>
<p><label>Last name <input name="last_name" value="Whitfield"></label></p>
<p><label>Date of birth <input type="date" name="dob" value="1990-04-12"></label> (empty: the document shows none)</p>
<p><label>Issuing country <input name="issuing_country" value="US" size="2"></label> (ISO alpha-2; empty: none)</p>
</fieldset>
<fieldset><legend><label><input type="radio" name="outcome" value="failed"> Failed</label></legend>
<p><label>Reason <select name="code">${codes}</select></label></p>
</fieldset>
<p><button type="submit">Submit</button></p>
</form>`;
}

/** The outcome the hosted form asks for, or what is wrong with it. */
function hostedOutcome(form: URLSearchParams): Outcome | string {
  if (form.get('outcome') === 'failed') {
    const code = form.get('code') ?? '';
    return failureCodes.includes(code) ? { outcome: 'failed', code } : 'Choose a reason.';
  }
  if (form.get('outcome') !== 'verified') return 'Choose an outcome.';
  const firstName = (form.get('first_name') ?? '').trim();
  const lastName = (form.get('last_name') ?? '').trim();
  if (!firstName || !lastName) return 'Type the first and last name on the document.';
  const dobText = form.get('dob') ?? '';
  const dob = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dobText);
  if (dobText && !dob) return 'Type the date of birth as YYYY-MM-DD.';
  const country = (form.get('issuing_country') ?? '').trim().toUpperCase();
  return {
    outcome: 'verified',
    document: {
      firstName,
      lastName,
      dob: dob ? { year: Number(dob[1]), month: Number(dob[2]), day: Number(dob[3]) } : null,
      issuingCountry: country || null,
      address: { line1: '1 Hosted Form Way', line2: null, city: 'Testville', state: null, postal_code: '10001', country: country || 'US' },
      idNumber: '000-00-0000',
      documentNumber: 'P0000000',
    },
  };
}

// Form-encoded keys in Stripe's bracket form (options[document][require_matching_selfie],
// expand[0], expand[]) as nested objects and arrays.
function parseForm(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of params) {
    const [head, ...rest] = key.split('[').map((part, i) => (i === 0 ? part : part.replace(/\]$/, '')));
    const path = [head!, ...rest];
    let node: Record<string, unknown> | unknown[] = out;
    path.forEach((segment, i) => {
      const container = node as Record<string, unknown>;
      const slot = segment === '' && Array.isArray(node) ? String(node.length) : segment;
      if (i === path.length - 1) {
        container[slot] = value;
        return;
      }
      container[slot] ??= /^\d*$/.test(path[i + 1]!) ? [] : {};
      node = container[slot] as Record<string, unknown> | unknown[];
    });
  }
  return out;
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

function unrecognized(method: string, url: URL): { status: number; body: unknown } {
  return { status: 404, body: { message: `Unrecognized request URL (${method}: ${url.pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` } };
}

/** Stripe's error body; every error here is of the invalid_request_error type. */
function stripeError(error: Record<string, unknown>): { error: Record<string, unknown> } {
  return { error: { type: 'invalid_request_error', ...error } };
}

function page(res: ServerResponse, status: number, body: string): void {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Identity verification (local Stripe stand-in)</title></head><body>${body}</body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
