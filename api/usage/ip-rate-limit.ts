// Per-IP rate limits on the routes that take no key, so a client without one cannot hammer them:
// the legacy /api/v1 endpoints (spec 4.11), the OpenAPI document and its /docs page, and the verify
// page with its actions (the session poll has a limit of its own, api/routes/sessions.ts). The same
// fixed per-minute and per-second windows, headers and 429 rate_limited with Retry-After as the
// per-key limits (./rate-limit.ts), keyed by the client's address: ctx.ip, the TCP peer, or behind
// trusted proxies the forwarded one (api/security/client-address.ts). An IPv6 client is counted
// per /64, since one host usually holds a whole /64 and could rotate through it. /health (polled by
// monitors) and the signing key (a constant) are left alone.
import ipaddr from 'ipaddr.js';
import type { Middleware } from 'koa';
import { enforceRate, type RateLimiter } from './rate-limit.ts';

export interface IpRateLimits {
  perMinute: number;
  perSecond: number;
}

/** The keyless routes that are limited (unknown paths under /api/ too, so scanning them counts). */
export function isIpLimitedPath(path: string): boolean {
  return path.startsWith('/api/') || path === '/openapi.json' || path === '/docs' || path.startsWith('/verify/');
}

/** What one client is counted under: the IPv4 address, or the /64 of an IPv6 one. */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return `other:${ip.slice(0, 64)}`;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

export function ipRateLimit(limiter: RateLimiter, limits: IpRateLimits): Middleware {
  // Not async: see api/middleware/request-id.ts.
  return (ctx, next) => {
    if (isIpLimitedPath(ctx.path)) {
      const key = clientKey(ctx.ip);
      enforceRate(ctx, limiter.take(`ip:${key}`, limits.perMinute, limits.perSecond), `this client address (${key}, no API key)`);
    }
    return next();
  };
}
