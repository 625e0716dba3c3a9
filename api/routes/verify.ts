// The verify page and its actions, keyless (the person verifying has no key; the session id in the
// URL is the whole of it) and mounted outside the /v1 key layer (api/app.ts):
//   GET  /verify/{id}         the page for the session's state (api/verify/page.ts)
//   POST /verify/{id}         the sandbox form: the outcome chosen; then back to the page (303)
//   GET  /verify/{id}/start   a hosted vendor's flow: an attempt started, then to the vendor (303)
// Pages are HTML with a strict CSP, never cached, never in a frame. A form post from another site
// is refused: the page's own form always comes from this origin.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { IdentityService } from '../../identity/service.ts';
import { SessionStateError, UnknownSessionError } from '../../identity/sessions.ts';
import { sandboxAges, sandboxResult } from '../../identity/kyc/sandbox.ts';
import { z } from 'zod';
import { renderCrossSitePage, renderProviderErrorPage, renderTestModePage, renderUnknownSessionPage, renderVerifyPage, verifyPageCsp, type PageView } from '../verify/page.ts';
import type { Logger } from '../../pipeline/log.ts';
import { refuseHead } from './sessions.ts';
import { testSessionId } from '../../identity/assess/test-mode.ts';

export interface VerifyDeps {
  identity: IdentityService;
  log: Logger;
}

export const sandboxFormSchema = z.object({
  outcome: z.enum(['verified', 'failed']).meta({ description: 'the outcome a real verification would have' }),
  jurisdiction: z.string().optional().meta({ description: 'verified: ISO 3166-1 alpha-2 of the document issuer' }),
  age: z.enum(Object.keys(sandboxAges) as [string, ...string[]]).optional().meta({ description: 'verified: the age bracket (under18: age_verified false)' }),
  name: z.string().max(200).optional().meta({ description: 'verified: the name to screen against the SDN list; never stored' }),
  birth_year: z.string().max(10).optional().meta({ description: "verified, optional: the year of birth on the document, screened as the name's second identifier; never stored" }),
});

const formBody = bodyParser({ enableTypes: ['form'], formLimit: '8kb', onError: () => undefined });

export function verifyRoutes(router: Router, deps: VerifyDeps): void {
  router.get('/verify/:session_id', async (ctx) => {
    await showPage(ctx, deps);
  });

  router.post('/verify/:session_id', formBody, async (ctx) => {
    const id = ctx.params.session_id!;
    if (!sameOrigin(ctx)) return html(ctx, 403, renderCrossSitePage(id));
    const form = sandboxFormSchema.safeParse((ctx.request as { body?: unknown }).body ?? {});
    if (!form.success) return showPage(ctx, deps, { problem: 'Choose one of the outcomes, and for a verified one the country and age.' });
    const parsed = sandboxResult({ ...form.data, birthYear: form.data.birth_year }, deps.identity.now());
    if ('problem' in parsed) return showPage(ctx, deps, { problem: parsed.problem, chosen: { jurisdiction: form.data.jurisdiction, age: form.data.age } });
    try {
      await deps.identity.submitSandboxResult(id, parsed.result);
    } catch (err) {
      // The page shows the session as it is (expired, already finished, ...).
      if (!(err instanceof SessionStateError) && !(err instanceof UnknownSessionError)) throw err;
    }
    ctx.status = 303;
    ctx.redirect(`/verify/${encodeURIComponent(id)}`);
  });

  router.get('/verify/:session_id/start', async (ctx) => {
    refuseHead(ctx.method, 'would start a verification at the vendor');
    const id = ctx.params.session_id!;
    try {
      const url = await deps.identity.startHosted(id);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.redirect(url);
    } catch (err) {
      if (err instanceof SessionStateError || err instanceof UnknownSessionError) {
        ctx.status = 303;
        return ctx.redirect(`/verify/${encodeURIComponent(id)}`);
      }
      deps.log.error('could not start the hosted verification', { session: id, error: String((err as Error)?.message ?? err) });
      html(ctx, 502, renderProviderErrorPage(id));
    }
  });
}

async function showPage(ctx: Context, deps: VerifyDeps, form?: Pick<PageView, 'problem' | 'chosen'>): Promise<void> {
  if (ctx.params.session_id === testSessionId) return html(ctx, 200, renderTestModePage());
  const page = await deps.identity.pageSession(ctx.params.session_id!);
  if (!page) return html(ctx, 404, renderUnknownSessionPage());
  const view: PageView = { ...page, provider: deps.identity.provider.flow, supportEmail: deps.identity.deps.supportEmail(), ...form };
  html(ctx, form?.problem ? 400 : 200, renderVerifyPage(view));
}

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.set({
    'Content-Security-Policy': verifyPageCsp,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'same-origin',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  });
  ctx.type = 'html';
  ctx.body = body;
}

// A form post from another site is refused. Browsers say where a request comes from in
// Sec-Fetch-Site (Chromium, Firefox, Safari), older ones in Origin; a client that sends neither
// (curl, a test) is not a browser on another site.
function sameOrigin(ctx: Context): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site) return site === 'same-origin' || site === 'none';
  const origin = ctx.get('Origin');
  if (!origin) return true;
  try {
    return new URL(origin).host === ctx.host;
  } catch {
    return false;
  }
}
