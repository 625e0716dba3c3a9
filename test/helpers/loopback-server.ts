// Real HTTP and HTTPS servers on 127.0.0.1 for tests that fetch over the network. HTTPS uses a
// fresh self-signed certificate for localhost/127.0.0.1; pass `ca` to the client to trust it.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll } from 'vitest';

export type Handler = (req: IncomingMessage, res: ServerResponse, origin: string) => void | Promise<void>;

export interface LoopbackServer {
  /** `https://127.0.0.1:PORT` or `http://127.0.0.1:PORT`. */
  origin: string;
  port: number;
  /** The certificate (PEM) to pass as `ca`; empty for plain HTTP. */
  ca: string;
}

export async function loopbackCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** Starts a server on an ephemeral loopback port; it is closed after the test file. */
export async function startLoopbackServer(handler: Handler, options: { tls?: boolean } = {}): Promise<LoopbackServer> {
  const tls = options.tls ? await loopbackCertificate() : null;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    Promise.resolve(handler(req, res, origin)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { origin, port, ca: tls?.cert ?? '' };
}

export function sendJson(res: ServerResponse, value: unknown, status = 200): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
