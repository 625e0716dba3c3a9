// The gate's denials as the client reads them (gate/CONTRACT.md, spec 7.1, 7.2), checked where
// they enter: a 401, 403 or 503 whose JSON body has `error.code` of the contract is a denial;
// anything else is the merchant's own answer and goes back to the caller untouched.
import { isPlainObject } from '../json.ts';
import { denialCodes, type DenialCode } from '../types.ts';

export interface Denial {
  status: number;
  code: DenialCode;
  message: string;
  action: string | null;
  userMessage: string | null;
  reasons: string[];
  /** The whole `error` object, for callers that want more (linked_wallets, infra_reason, …). */
  error: Record<string, unknown>;
}

/** A session the gate handed over with identity_verification_required or token_expired. */
export interface DenialSession {
  sessionId: string | null;
  verifyUrl: string;
  pollUrl: string;
  pollSecret: string;
  expiresAt: string | null;
  pollIntervalSeconds: number | null;
  /** The identity service's base URL, from poll_url (and verify_url on the same service). */
  service: string;
}

const deniedStatuses = new Set([401, 403, 503]);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The denial in `res` (its body read from a clone), or null when it is not one. */
export async function readDenial(res: Response): Promise<Denial | null> {
  if (!deniedStatuses.has(res.status)) return null;
  if (!(res.headers.get('content-type') ?? '').toLowerCase().includes('json')) return null;
  let body: unknown;
  try {
    body = await res.clone().json();
  } catch {
    return null;
  }
  if (!isPlainObject(body) || !isPlainObject(body.error)) return null;
  const error = body.error;
  const code = str(error.code);
  if (code === null || !(denialCodes as readonly string[]).includes(code)) return null;
  const instructions = isPlainObject(error.agent_instructions) ? error.agent_instructions : {};
  return {
    status: res.status,
    code: code as DenialCode,
    message: str(error.message) ?? code,
    action: str(instructions.action),
    userMessage: str(instructions.user_message),
    reasons: Array.isArray(error.reasons) ? error.reasons.filter((r): r is string => typeof r === 'string') : [],
    error,
  };
}

const pollPath = /^(.*)\/v1\/sessions\/([^/?#]+)$/;
const verifyPath = /^(.*)\/verify\/([^/?#]+)$/;

/**
 * The session of an identity_verification_required or token_expired denial, or a reason it cannot
 * be used. The service is where poll_url lives; verify_url must be on the same service, so a
 * merchant's body cannot send the user to one place and the agent's poll to another.
 */
export function denialSession(denial: Denial): DenialSession | { problem: string } {
  const e = denial.error;
  const verifyUrl = str(e.verify_url);
  const pollUrl = str(e.poll_url);
  const pollSecret = str(e.poll_secret);
  if (verifyUrl === null || pollUrl === null || pollSecret === null) return { problem: `the ${denial.code} denial has no verify_url, poll_url and poll_secret` };
  const poll = httpUrl(pollUrl);
  const verify = httpUrl(verifyUrl);
  if (poll === null || verify === null) return { problem: `the ${denial.code} denial's verify_url or poll_url is not an http(s) URL` };
  const pollMatch = pollPath.exec(`${poll.origin}${poll.pathname}`);
  const verifyMatch = verifyPath.exec(`${verify.origin}${verify.pathname}`);
  if (!pollMatch || !verifyMatch) return { problem: `the ${denial.code} denial's poll_url or verify_url is not a session address of an identity service` };
  const service = pollMatch[1]!.replace(/\/+$/, '');
  if (verifyMatch[1]!.replace(/\/+$/, '') !== service) return { problem: `the ${denial.code} denial's verify_url and poll_url are on different services` };
  const instructions = isPlainObject(e.agent_instructions) ? e.agent_instructions : {};
  const interval = [e.poll_interval_seconds, instructions.poll_interval_seconds].find((v): v is number => typeof v === 'number' && v > 0 && v <= 300) ?? null;
  return { sessionId: str(e.session_id), verifyUrl, pollUrl, pollSecret, expiresAt: str(e.expires_at), pollIntervalSeconds: interval, service };
}

function httpUrl(value: string): URL | null {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}
