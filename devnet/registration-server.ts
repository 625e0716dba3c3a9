// A loopback HTTPS server for the documents agents point at: ERC-8004 registration files, A2A agent
// cards, small websites, feedback and response files. HTTPS because agentURIs in the wild are
// https:// URLs and a fetcher must handle TLS; the certificate is self-signed for 127.0.0.1 and
// localhost, and exposed as `caPem` so a client can trust exactly this server.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface RegistrationServer {
  /** Base URL without a trailing slash, e.g. https://127.0.0.1:41234 */
  url: string;
  /** PEM of the server's self-signed certificate: pass it as `ca`, or via NODE_EXTRA_CA_CERTS. */
  caPem: string;
  /** Serves `body` at `path` (from now on, replacing what was there). */
  publish(path: string, body: string, contentType?: string): void;
  close(): Promise<void>;
}

export interface RegistrationServerOptions {
  /** 127.0.0.1 unless given. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

const DAY_MS = 86_400_000;

export async function startRegistrationServer(opts: RegistrationServerOptions = {}): Promise<RegistrationServer> {
  const host = opts.host ?? '127.0.0.1';
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    // A day of slack either way, for clocks that disagree a little.
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 365 * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });

  const documents = new Map<string, { body: string; contentType: string }>();
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const document = documents.get(new URL(req.url ?? '/', 'https://host').pathname);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (!document) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    } else {
      res.writeHead(200, { 'content-type': document.contentType, 'content-length': Buffer.byteLength(document.body) });
      res.end(req.method === 'HEAD' ? undefined : document.body);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    caPem: pems.cert,
    publish(path, body, contentType = 'application/json') {
      documents.set(path, { body, contentType });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Fetchers keep connections alive; do not wait for them to time out.
        server.closeAllConnections();
      }),
  };
}
