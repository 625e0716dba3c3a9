// Stripe Identity behind the verify page (KYC_PROVIDER=stripe), through the official `stripe`
// package: one hosted VerificationSession (VS) per attempt, its result by signed webhook.
//
// Our session id rides on the VS as metadata.session_id: it is the join key of every event, and
// the store applies a result only to the session whose current attempt is that same VS
// (identity/sessions.ts), so a VS and a session must name each other.
//
// What leaves this module: the VS id and its hosted URL, and per result the derived facts of
// provider.ts (the document's issuing country, an age bracket, 'individual') plus the name and the
// year of birth to screen. Everything else Stripe holds (the rest of the date of birth, address,
// id and document numbers, images)
// is read here only as far as those facts need, and is never returned, logged or put in an error.
//
// Stripe shows the date of birth only to a restricted key with Identity's "Access recent
// sensitive verification results" permission, and only when expanded by name
// (verified_outputs.dob): expanding verified_outputs alone leaves it out.
//
// Our failure codes beside Stripe's last_error codes: a VS Stripe calls verified that lacks what
// the facts need is `dob_unavailable`, `issuing_country_unavailable` or `name_unavailable` (fail
// closed: never verified without an age, a jurisdiction and a name screened); a VS canceled (in
// Stripe's Dashboard) is `canceled`.
import Stripe from 'stripe';
import { jurisdictionCode } from '../jurisdictions.ts';
import { ageBracketOf, NoAttemptsLeftError, WebhookSignatureError, type HostedProvider, type KycResult, type WebhookDelivery } from './provider.ts';

export interface StripeProviderOptions {
  /** STRIPE_SECRET_KEY: a restricted key (rk_…) to read dates of birth (see above). */
  secretKey: string;
  /** STRIPE_WEBHOOK_SECRET: the signing secret (whsec_…) of our webhook endpoint. */
  webhookSecret: string;
  /** STRIPE_API_BASE: another address for Stripe's API (a local server speaking it, in tests). */
  apiBase?: string;
  /** How old a delivery's signature timestamp may be; Stripe's default 300 s. */
  toleranceSeconds?: number;
  now?: () => Date;
}

const sessionIdKey = 'session_id';
const sessionEvent = 'identity.verification_session.';
// Stripe's codes are lowercase snake_case; anything else is not passed on as a code.
const codePattern = /^[a-z0-9_]{1,64}$/;

export function createStripeProvider(options: StripeProviderOptions): HostedProvider {
  const { webhookSecret } = options;
  const tolerance = options.toleranceSeconds ?? Stripe.webhooks.DEFAULT_TOLERANCE;
  if (!Number.isInteger(tolerance) || tolerance < 1) throw new Error(`toleranceSeconds must be a whole number of seconds ≥ 1 (0 would turn the replay window off), not ${tolerance}`);
  const now = options.now ?? (() => new Date());
  const stripe = stripeClient(options.secretKey, options.apiBase);
  const sessions = stripe.identity.verificationSessions;

  // The VS of the session's current attempt as Stripe has it now; null when it is gone or names
  // another session.
  async function retrieveOwn(providerRef: string, sessionId: string): Promise<Stripe.Identity.VerificationSession | null> {
    try {
      const vs = await sessions.retrieve(providerRef);
      return sessionIdOf(vs) === sessionId ? vs : null;
    } catch (err) {
      // Gone (resource_missing) or not ours to see: a new one replaces it. Anything else (Stripe
      // unreachable, a bad key) would fail the create too: the page says so.
      if (err instanceof Stripe.errors.StripeInvalidRequestError) return null;
      throw err;
    }
  }

  async function cancelQuietly(vs: Stripe.Identity.VerificationSession): Promise<void> {
    // Only requires_input can be canceled; once replaced, its hosted URL should not lead anywhere.
    // Best effort, without retries: the user is waiting, and a stale VS's result is refused anyway.
    if (vs.status !== 'requires_input') return;
    await sessions.cancel(vs.id, {}, { maxNetworkRetries: 0 }).catch(() => undefined);
  }

  async function verifiedResult(vsId: string, sessionId: string): Promise<KycResult | { ignored: string }> {
    let vs: Stripe.Identity.VerificationSession;
    try {
      vs = await sessions.retrieve(vsId, { expand: ['verified_outputs', 'verified_outputs.dob', 'last_verification_report'] });
    } catch (err) {
      if (err instanceof Stripe.errors.StripePermissionError) {
        throw new Error(
          `Stripe refused to show VerificationSession ${vsId}'s verified outputs (request ${err.requestId}): STRIPE_SECRET_KEY must be a restricted key (rk_…) ` +
            'with Identity write access and "Access recent sensitive verification results" read access; Stripe delivers the event again once this answers',
        );
      }
      throw err;
    }
    // The join key again, as Stripe's API has it now: the event and the VS must agree.
    // A permanent condition: acknowledged (Stripe would deliver it again for days otherwise), not applied.
    if (sessionIdOf(vs) !== sessionId) return { ignored: `VerificationSession ${vsId} names session ${sessionIdOf(vs)} at Stripe but ${sessionId} in the event: its metadata was changed` };
    const report = typeof vs.last_verification_report === 'object' ? vs.last_verification_report : null;
    const jurisdiction = jurisdictionCode(report?.document?.issuing_country ?? '');
    if (!jurisdiction) return { outcome: 'failed', code: 'issuing_country_unavailable' };
    const birth = birthDate(vs.verified_outputs?.dob, now());
    if (!birth) return { outcome: 'failed', code: 'dob_unavailable' };
    const name = [vs.verified_outputs?.first_name, vs.verified_outputs?.last_name].map((part) => part?.trim() ?? '').filter((part) => part.length > 0).join(' ');
    if (name.length === 0) return { outcome: 'failed', code: 'name_unavailable' };
    return { outcome: 'verified', identity: { jurisdiction, ageBracket: ageBracketOf(birth, now()), operatorType: 'individual', screeningName: name, screeningBirthYear: birth.year } };
  }

  function verifiedEvent(rawBody: Buffer, signature: string | undefined): Stripe.Event {
    if (!signature) throw new WebhookSignatureError('no Stripe-Signature header: this endpoint takes only deliveries Stripe signs with STRIPE_WEBHOOK_SECRET');
    // The SDK tells which check failed in prose only: the HMAC checked alone first (tolerance 0
    // skips the timestamp) says which one it was without reading its messages.
    try {
      Stripe.webhooks.constructEvent(rawBody, signature, webhookSecret, 0);
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeSignatureVerificationError)) throw err;
      throw new WebhookSignatureError(
        'the Stripe-Signature header does not verify this body: check that STRIPE_WEBHOOK_SECRET is the signing secret of this endpoint ' +
          '(Dashboard, Developers, Webhooks) and that nothing between Stripe and this service changes the body',
      );
    }
    try {
      return Stripe.webhooks.constructEvent(rawBody, signature, webhookSecret, tolerance, undefined, now().getTime());
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeSignatureVerificationError)) throw err;
      throw new WebhookSignatureError(`the Stripe-Signature timestamp is more than ${tolerance} s old: a replayed delivery, or this server's clock is wrong (check its time sync)`);
    }
  }

  async function resultOf(type: string, vs: Stripe.Identity.VerificationSession, sessionId: string): Promise<KycResult | { ignored: string } | null> {
    switch (type) {
      case 'identity.verification_session.verified':
        return verifiedResult(vs.id, sessionId);
      case 'identity.verification_session.requires_input': {
        // Without last_error nothing failed: the VS is still open to the user.
        const code = vs.last_error?.code;
        return code ? { outcome: 'failed', code: codePattern.test(code) ? code : 'unverified_other' } : null;
      }
      case 'identity.verification_session.canceled':
        return { outcome: 'failed', code: 'canceled' };
      default:
        // created, processing, redacted: no result.
        return null;
    }
  }

  return {
    name: 'stripe',
    flow: 'hosted',

    async start({ id, providerRef, returnUrl, attempt, mayCreate }) {
      const previous = providerRef ? await retrieveOwn(providerRef, id) : null;
      // A reload while the VS is open and never submitted (requires_input without last_error)
      // continues it: a retrieve gives a fresh hosted URL (each works once).
      if (previous?.status === 'requires_input' && !previous.last_error && previous.url) return { url: previous.url, providerRef: previous.id };
      // Submitted and being checked (or checked, the event on its way): a new VS would throw the
      // submission away. Back to our page, which waits for the result.
      if (previous?.status === 'processing' || previous?.status === 'verified') return { url: returnUrl, providerRef: previous.id };
      if (!mayCreate) throw new NoAttemptsLeftError(`session ${id} has no verification attempts left`);
      // One key per (session, attempt): two starts racing (a double click, two tabs) get one VS.
      const created = await sessions.create(
        {
        type: 'document',
        options: { document: { require_matching_selfie: true } },
        metadata: { [sessionIdKey]: id },
        // Also Stripe's own reference field: the Dashboard and the list API find a VS by it.
        client_reference_id: id,
        return_url: returnUrl,
        },
        { idempotencyKey: `${id}:attempt-${attempt}` },
      );
      if (!created.url || sessionIdOf(created) !== id) throw new Error(`Stripe answered the new VerificationSession ${created.id} without a hosted url or our session id: check STRIPE_API_BASE`);
      if (previous) await cancelQuietly(previous);
      return { url: created.url, providerRef: created.id };
    },

    async receiveWebhook(rawBody, signature): Promise<WebhookDelivery> {
      const event = verifiedEvent(rawBody, signature);
      const vs = event.type.startsWith(sessionEvent) ? (event.data.object as Stripe.Identity.VerificationSession) : null;
      // A VS without our session id was made by something else on the Stripe account.
      const sessionId = vs?.object === 'identity.verification_session' ? sessionIdOf(vs) : null;
      const result = vs && sessionId ? await resultOf(event.type, vs, sessionId) : null;
      if (!vs || !sessionId || !result) return { kind: 'ignored', eventId: event.id, type: event.type };
      if ('ignored' in result) return { kind: 'ignored', eventId: event.id, type: event.type, reason: result.ignored };
      return { kind: 'result', eventId: event.id, type: event.type, sessionId, providerRef: vs.id, result };
    },
  };
}

// Timeouts and retries: start() runs while a person waits for the verify page's redirect, and a
// webhook we fail is delivered again by Stripe, so a call gets 10 s (the SDK's default is 80 s)
// and two retries on network errors, 409 and 5xx (the SDK backs off 0.5 s to 5 s and sends an
// idempotency key with every POST, so a retried create makes one VS). Telemetry off: the SDK
// would report earlier calls' latencies to Stripe in a header, of no use to us. The SDK sends the
// API version its types describe, whatever the account's default.
function stripeClient(secretKey: string, apiBase: string | undefined): Stripe {
  const base = apiBase ? new URL(apiBase) : null;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    timeout: 10_000,
    maxNetworkRetries: 2,
    telemetry: false,
    ...(base ? { host: base.hostname, port: base.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
  });
}

function sessionIdOf(vs: Stripe.Identity.VerificationSession): string | null {
  const id = vs.metadata?.[sessionIdKey];
  return typeof id === 'string' && id.startsWith('sess_') ? id : null;
}

/** A real calendar date no later than `now` (and after 1900), or null. */
function birthDate(dob: Stripe.Identity.VerificationSession.VerifiedOutputs.Dob | null | undefined, now: Date): { year: number; month: number; day: number } | null {
  if (!dob || !Number.isInteger(dob.year) || !Number.isInteger(dob.month) || !Number.isInteger(dob.day)) return null;
  const { year, month, day } = dob as { year: number; month: number; day: number };
  const at = new Date(Date.UTC(year, month - 1, day));
  const real = at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
  return real && year >= 1900 && at.getTime() <= now.getTime() ? { year, month, day } : null;
}
