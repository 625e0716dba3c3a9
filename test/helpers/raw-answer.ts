// An HTTP exchange with the headers of the answer as sent: names in their case and order, for the
// hot paths' tests, which compare a hot path's answer with the Koa route's header by header.
import http from 'node:http';

export interface RawAnswer {
  status: number;
  /** Header names and values in the order sent. */
  headers: [string, string][];
  body: string;
}

export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; agent?: false }, body?: string): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, ...(options.agent === false ? { agent: false } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The value of header `name` (any case), or undefined. */
export function rawHeader(answer: RawAnswer, name: string): string | undefined {
  return answer.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}
