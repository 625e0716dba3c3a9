// The admin endpoint: POST /admin/operations/{name} with the operation's JSON arguments,
// authenticated by the bearer token from DATA_DIR/admin.token. Bound to 127.0.0.1 only.
import Koa from 'koa';
import { secretsEqual } from '../secrets.ts';
import { isOperationName, runOperationIn, type OperationContext } from './operations.ts';
import { OperationInputError } from './operation-input-error.ts';
import { QueueUnavailableError } from '../../jobs/bullmq/connection.ts';

const maxBodyBytes = 1 << 20;

export function createAdminApp(ctxBase: OperationContext, token: string): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    const match = /^\/admin\/operations\/([a-z.]+)$/.exec(ctx.path);
    const reply = (status: number, body: unknown) => {
      ctx.status = status;
      ctx.body = body;
    };
    const auth = /^Bearer (.+)$/.exec(ctx.get('Authorization'));
    if (!auth || !secretsEqual(auth[1]!, token)) return reply(401, { error: { code: 'unauthorized', message: 'admin token required' } });
    if (ctx.method !== 'POST' || !match || !isOperationName(match[1]!)) return reply(404, { error: { code: 'not_found', message: 'unknown admin operation' } });
    let args: unknown;
    try {
      args = JSON.parse((await readBody(ctx.req)) || '{}');
    } catch {
      return reply(400, { error: { code: 'bad_request', message: 'body must be JSON' } });
    }
    try {
      reply(200, { result: await runOperationIn(ctxBase, match[1], args) });
    } catch (err) {
      const message = (err as Error).message;
      if (err instanceof OperationInputError) return reply(400, { error: { code: 'bad_request', message } });
      // Work that cannot be enqueued is refused at once, never left hanging.
      if (err instanceof QueueUnavailableError) return reply(503, { error: { code: 'unavailable', message } });
      ctxBase.log.error('admin operation failed', { operation: match[1], error: String((err as Error).stack ?? err) });
      reply(500, { error: { code: 'internal_error', message } });
    }
  });
  return app;
}

async function readBody(req: NodeJS.ReadableStream): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
