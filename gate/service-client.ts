// Every call the gate makes to the service, in one place: the merchant's API key, JSON in and out,
// a timeout on the whole exchange (headers and body), and a result instead of a throw. What an
// answer means for the buyer is decided by the callers; `infraReasonOf` says which answers are
// the service failing (spec 7.2 rule 2: 429, 5xx, no answer in time). What went wrong is told to
// the merchant's `onServiceProblem` only: a buyer's denial never carries it.
import type { InfraReason, ServiceProblem } from './types.ts';

export type ServiceAnswer =
  | { kind: 'answer'; status: number; body: any; headers: Headers }
  /** No usable answer: nothing in time (`network_timeout`), refused, reset, or not JSON (`api_error`). */
  | { kind: 'unreachable'; reason: 'network_timeout' | 'api_error'; detail: string };
/** An answer the caller reads: what is left once `infraReasonOf` found no failure. */
export type Answered = Extract<ServiceAnswer, { kind: 'answer' }>;

export interface ServiceClientOptions {
  serviceUrl: string;
  apiKey: string;
  timeoutMs: number;
  fetch?: typeof globalThis.fetch;
}

export interface ServiceClient {
  readonly serviceUrl: string;
  call(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs?: number): Promise<ServiceAnswer>;
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const serviceUrl = options.serviceUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return {
    serviceUrl,
    async call(method, path, body, timeoutMs = options.timeoutMs) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const res = await fetchImpl(`${serviceUrl}${path}`, {
          method,
          headers: { 'X-API-Key': options.apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
        const text = await res.text();
        let parsed: unknown = null;
        if (text) {
          try {
            parsed = JSON.parse(text);
          } catch {
            // A 5xx page from a proxy is still a 5xx; a success that is not JSON is no answer.
            if (res.status < 300) return { kind: 'unreachable', reason: 'api_error', detail: `${method} ${path} answered ${res.status} with a body that is not JSON` };
          }
        }
        return { kind: 'answer', status: res.status, body: parsed, headers: res.headers };
      } catch (err) {
        const timedOut = signal.aborted || (err as Error)?.name === 'TimeoutError';
        return timedOut
          ? { kind: 'unreachable', reason: 'network_timeout', detail: `${method} ${path}: no answer within ${timeoutMs} ms` }
          : { kind: 'unreachable', reason: 'api_error', detail: `${method} ${path}: ${describe(err)}` };
      }
    },
  };
}

/** The service failing rather than answering: null for an answer the caller must read. */
export function infraReasonOf(answer: ServiceAnswer): InfraReason | null {
  if (answer.kind === 'unreachable') return answer.reason;
  if (answer.status === 429) return 'quota_exceeded';
  if (answer.status >= 500) return 'api_error';
  return null;
}

/** The service's error code of a non-2xx answer (spec 7.1), if it has one. */
export function errorCodeOf(answer: ServiceAnswer): string | undefined {
  if (answer.kind !== 'answer') return undefined;
  const code = answer.body?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What the merchant's logs get of an exchange that went wrong. */
export function problemOf(call: ServiceProblem['call'], answer: ServiceAnswer): ServiceProblem {
  if (answer.kind === 'unreachable') return { call, detail: answer.detail };
  const code = errorCodeOf(answer);
  const message: unknown = answer.body?.error?.message;
  return { call, status: answer.status, ...(code ? { code } : {}), detail: typeof message === 'string' ? message : `answered ${answer.status}` };
}

/** The merchant's `onServiceProblem`, made safe to call: its logger failing must not fail the request. */
export function problemReporter(onServiceProblem: ((problem: ServiceProblem) => void) | undefined): (problem: ServiceProblem) => void {
  return (problem) => {
    try {
      onServiceProblem?.(problem);
    } catch {
      // never the request's problem
    }
  };
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}
