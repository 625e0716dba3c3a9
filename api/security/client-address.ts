// Which address a request comes from, for IP allowlists and per-IP rate limits (`ctx.ip`).
//
// By default the TCP peer: X-Forwarded-For is ignored, because any client can send one. Behind N
// reverse proxies that each append the address they received the request from (nginx's
// $proxy_add_x_forwarded_for, most load balancers), TRUST_PROXY_HOPS=N makes the client the Nth
// address from the right of PROXY_IP_HEADER: Koa's app.proxy with app.maxIpsCount = N, so the
// entries a client wrote itself, further left, are never read. A request without the header is the
// TCP peer. Trusting proxies only holds when the API port is reachable through them alone.
import type Koa from 'koa';

export interface ProxyTrust {
  /** Proxies in front of the API that append to the header; 0 = trust none (the TCP peer). */
  hops: number;
  /** The header they write, X-Forwarded-For unless configured. */
  ipHeader: string;
}

export const defaultProxyIpHeader = 'X-Forwarded-For';

export function trustProxies(app: Koa, trust?: ProxyTrust): void {
  const hops = trust?.hops ?? 0;
  app.proxy = hops > 0;
  app.maxIpsCount = hops;
  app.proxyIpHeader = trust?.ipHeader ?? defaultProxyIpHeader;
}
