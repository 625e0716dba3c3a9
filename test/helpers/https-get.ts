// GET over https trusting only the given certificate, as a fetcher configured with the devnet's CA does.
import { request } from 'node:https';

export interface HttpsResponse {
  status: number;
  contentType: string;
  body: string;
}

export function httpsGet(url: string, caPem: string): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    request(url, { ca: caPem }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', body }));
    })
      .on('error', reject)
      .end();
  });
}
