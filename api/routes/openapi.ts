// GET /openapi.json and GET /docs: the API reference, no key, free. Both are built once per process
// from api/openapi/operations.ts (the document does not change while the server runs), cached by
// clients for 5 minutes and revalidated by ETag.
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { buildOpenApiDocument } from '../openapi/document.ts';
import { renderDocsPage } from '../openapi/docs-page.ts';

interface Published {
  body: string;
  etag: string;
}

let reference: { json: Published; html: Published } | null = null;

function published(): { json: Published; html: Published } {
  if (!reference) {
    const doc = buildOpenApiDocument();
    const entry = (body: string) => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
    reference = { json: entry(JSON.stringify(doc)), html: entry(renderDocsPage(doc)) };
  }
  return reference;
}

function send(ctx: Context, page: Published, type: 'json' | 'html'): void {
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.etag = page.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = page.body;
}

export function openApiRoutes(router: Router): void {
  router.get('/openapi.json', (ctx) => send(ctx, published().json, 'json'));
  router.get('/docs', (ctx) => send(ctx, published().html, 'html'));
}
