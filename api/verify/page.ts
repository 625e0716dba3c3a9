// The verify page (GET /verify/{session_id}): what a person sees when their agent hands them a
// verify_url. One self-contained HTML document per session state: no script, no third-party
// asset, one inline style pinned by its hash in a strict Content-Security-Policy, readable on a
// 375 px phone. It never shows a secret; the session id in its URL is the only one it carries.
import { createHash } from 'node:crypto';
import type { Session, SessionStatus } from '../../identity/sessions.ts';
import { maxAttempts, retryUntil } from '../../identity/sessions.ts';
import { sandboxAges } from '../../identity/kyc/sandbox.ts';
import { jurisdictionChoices } from '../../identity/jurisdictions.ts';

const style = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7;overflow-wrap:break-word}
main{max-width:34rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.45rem;line-height:1.25;margin:.25rem 0 .75rem}
h2{font-size:1.05rem;margin:1.25rem 0 .4rem}
p,li{margin:.35rem 0}
ul{padding-left:1.2rem;margin:.25rem 0}
.card{background:#fff;border:1px solid #d8dce1;border-radius:.6rem;padding:1rem 1.1rem;margin:1rem 0}
.card>:first-child{margin-top:0}
.card>:last-child{margin-bottom:0}
.who{color:#4a5360;margin:0}
.state{font-weight:600}
.ok{border-color:#2f8f4e;background:#eef8f1}
.bad{border-color:#b3261e;background:#fcefee}
.wait{border-color:#8a6d00;background:#fdf7e3}
.sandbox{border:2px dashed #8a6d00;background:#fffbea}
.sandbox .tag{display:inline-block;background:#8a6d00;color:#fff;font-weight:700;font-size:.8rem;letter-spacing:.06em;padding:.1rem .5rem;border-radius:.3rem}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
select,input[type=text]{width:100%;min-height:2.75rem;font:inherit;color:inherit;padding:.55rem .6rem;border:1px solid #6b7480;border-radius:.4rem;background:#fff}
.hint{color:#4a5360;margin:.35rem 0 0}
a{color:#1f5fbf}
time{white-space:nowrap}
:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin-top:1rem}
button,.button{font:inherit;font-weight:600;padding:.7rem 1.1rem;border-radius:.45rem;border:1px solid transparent;cursor:pointer;text-decoration:none;display:inline-block;text-align:center;min-height:2.75rem}
.primary{background:#1f5fbf;color:#fff}
.secondary{background:#fff;color:#b3261e;border-color:#b3261e}
.problem{color:#b3261e;font-weight:600}
footer{font-size:.85rem;color:#4a5360;margin-top:2rem}
@media (max-width:420px){.actions{flex-direction:column}button,.button{width:100%}}
`;

/** The Content-Security-Policy of every verify page: nothing loads or runs but the inline style. */
export const verifyPageCsp = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface PageView {
  session: Session;
  status: SessionStatus;
  now: Date;
  provider: 'sandbox' | 'hosted';
  supportEmail: string;
  /** A problem with the sandbox form as submitted, shown above it. */
  problem?: string;
  /** The country and age chosen in that form, chosen again (never the name or the year of birth: they are not kept). */
  chosen?: { jurisdiction?: string; age?: string };
}

// The heading says where the person stands; only an open session asks them to verify.
const headings: Record<SessionStatus, string> = {
  pending: 'Verify your identity',
  failed: 'Verify your identity',
  verified: 'Identity verified',
  consumed: 'Identity verified',
  flagged: 'Verification under review',
  expired: 'Verification link expired',
};

export function renderVerifyPage(view: PageView): string {
  const { session } = view;
  const merchant = session.merchantName ?? 'the merchant';
  const title = session.productName ? `${headings[view.status]} for ${session.productName}` : headings[view.status];
  // While a hosted vendor's result is on its way the page looks again by itself (no script needed).
  const waiting = view.status === 'pending' && view.provider === 'hosted' && session.attempts > 0;
  return document(
    title,
    `${session.merchantName ? `<p class="who">Requested by <strong>${esc(session.merchantName)}</strong></p>\n` : ''}<h1>${esc(title)}</h1>
${stateSection(view, merchant)}`,
    waiting ? 5 : undefined,
  );
}

export function renderUnknownSessionPage(): string {
  return document(
    'Verification link not found',
    `<h1>Verification link not found</h1>
<div class="card bad"><p>This link does not lead to a verification. Check that it was copied whole, or ask your agent to start again: it will give you a new link.</p></div>`,
  );
}

/** The verify_url of assess's test mode (spec 4.2): no session is behind it. */
export function renderTestModePage(): string {
  return document(
    'Test mode',
    `<h1>Test mode verification link</h1>
<div class="card sandbox"><p><span class="tag">TEST</span></p><p>This link came from an assessment in test mode (<code>test: true</code>). No verification session is behind it and nothing is recorded. A live assessment gives a link to a real verification.</p></div>`,
  );
}

export function renderCrossSitePage(sessionId: string): string {
  return document(
    'Form refused',
    `<h1>This form came from another site</h1>
<div class="card bad"><p>For your safety, a verification can only be completed on its own page. Nothing was changed.</p>
<div class="actions"><a class="button primary" href="/verify/${esc(sessionId)}">Open the verification page</a></div></div>`,
  );
}

export function renderProviderErrorPage(sessionId: string): string {
  return document(
    'Verification unavailable',
    `<h1>The verification service could not be reached</h1>
<div class="card bad"><p>Nothing was lost. Please try again in a minute.</p>
<div class="actions"><a class="button primary" href="/verify/${esc(sessionId)}">Back</a></div></div>`,
  );
}

function stateSection(view: PageView, merchant: string): string {
  const { session, status, now } = view;
  switch (status) {
    case 'pending':
      return `${explainer(merchant, view.provider)}${view.provider === 'sandbox' ? sandboxForm(view) : hostedStart(session, session.attempts > 0 ? 'continue' : 'start')}`;
    case 'verified':
    case 'consumed':
      return `<div class="card ok"><p class="state">Verification complete.</p>
<p>You can close this page. Your agent receives the result by itself and continues where it stopped.</p></div>`;
    case 'failed': {
      const until = retryUntil(session, now);
      const intro = `<div class="card bad"><p class="state">The verification did not succeed.</p>`;
      if (until === null) {
        const why = now >= session.expiresAt ? 'This link has expired.' : `No attempts are left (${maxAttempts} in all).`;
        return `${intro}<p>${why} Ask your agent to start again: it will give you a new link.</p></div>`;
      }
      const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
      const advice = view.provider === 'hosted' ? ' Make sure the document is valid, fully visible and well lit.' : '';
      const retry = `<p>You can try again within ${minutes === 1 ? 'the next minute' : `the next ${minutes} minutes`}, until ${timeOf(until)} (attempt ${session.attempts + 1} of ${maxAttempts}).${advice}</p></div>`;
      return `${intro}${retry}${view.provider === 'sandbox' ? sandboxForm(view) : hostedStart(session, 'retry')}`;
    }
    case 'flagged': {
      const subject = `Identity review for verification session ${session.id}`;
      return `<div class="card wait"><p class="state">Your verification needs a manual review.</p>
<p>No access can be granted until a person has reviewed it. Please write to ${mailto(view.supportEmail, subject)} with the subject <strong>${esc(subject)}</strong>.</p></div>`;
    }
    case 'expired':
      return `<div class="card bad"><p class="state">This link has expired.</p>
<p>Verification links work for one hour. Ask your agent to start again: it will give you a new link.</p></div>`;
  }
}

function explainer(merchant: string, provider: PageView['provider']): string {
  // In the sandbox nothing but the name is checked for real: the form below says so.
  return `<div class="card"><h2>${provider === 'sandbox' ? 'What a real verification checks' : 'What will be checked'}</h2>
<ul><li>An identity document (passport, national ID card or driving licence) and that it is yours</li>
<li>Your age</li><li>The country that issued the document</li>
<li>Your name against the OFAC sanctions list; the name is used for that check only and then discarded</li></ul>
<h2>What ${esc(merchant)} will see</h2>
<ul><li>That you are verified</li><li>Your age bracket: under 18, 18+ or 21+</li><li>Your country</li><li>Whether you are clear of the OFAC sanctions list</li></ul>
<p class="hint">Never your name, address, date of birth, document number or photos: this service does not keep them.</p></div>`;
}

function sandboxForm(view: PageView): string {
  const country = view.chosen?.jurisdiction ?? 'US';
  const countries = jurisdictionChoices()
    .map(({ code, name }) => `<option value="${code}"${code === country ? ' selected' : ''}>${esc(name)} (${code})</option>`)
    .join('');
  const ages = Object.entries(sandboxAges)
    .map(([value, { label }]) => `<option value="${esc(value)}"${value === view.chosen?.age ? ' selected' : ''}>${esc(label)}</option>`)
    .join('');
  return `<form class="card sandbox" method="post" action="/verify/${esc(view.session.id)}">
<p><span class="tag">SANDBOX</span></p>
<p><strong>This is a test service: no identity document is checked.</strong> Choose the outcome a real verification would have.</p>
${view.problem ? `<p class="problem" role="alert">${esc(view.problem)}</p>` : ''}
<label for="jurisdiction">Country that issued the document</label>
<select id="jurisdiction" name="jurisdiction">${countries}</select>
<label for="age">Age</label>
<select id="age" name="age">${ages}</select>
<label for="name">Full name on the document</label>
<input id="name" name="name" type="text" autocomplete="off" maxlength="200" placeholder="Given names and surname">
<label for="birth_year">Year of birth on the document (optional)</label>
<input id="birth_year" name="birth_year" type="text" inputmode="numeric" autocomplete="off" maxlength="4" placeholder="e.g. 1985">
<p class="hint">Screened against the OFAC sanctions list, then discarded. A listed name leads to a manual review, unless the listed person was born in other years.</p>
<div class="actions">
<button class="primary" type="submit" name="outcome" value="verified" data-outcome="verified">Verification succeeds</button>
<button class="secondary" type="submit" name="outcome" value="failed" data-outcome="failed">Verification fails</button>
</div></form>`;
}

function hostedStart(session: Session, mode: 'start' | 'continue' | 'retry'): string {
  // A link, not a form: the vendor's page is on another origin, and form-action 'self' would stop
  // a form's redirect there. Starting again while pending reuses the vendor's open session.
  const intro = {
    start: "<p>The check takes a few minutes on our verification partner's page, with your phone's or computer's camera.</p>",
    continue: '<p class="state">Waiting for the result of your verification.</p><p>This page updates by itself. If you did not finish, continue below.</p>',
    retry: '',
  }[mode];
  const label = { start: 'Start verification', continue: 'Continue verification', retry: 'Try again' }[mode];
  return `<div class="card">${intro}
<div class="actions"><a class="button primary" href="/verify/${esc(session.id)}/start" data-action="start">${label}</a></div></div>`;
}

function document(title: string, body: string, refreshSeconds?: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refreshSeconds ? `\n<meta http-equiv="refresh" content="${refreshSeconds}">` : ''}
<meta name="referrer" content="same-origin">
<title>${esc(title)}</title>
<style>${style}</style></head>
<body><main>
${body}
<footer>Identity verification by the wallet reputation and identity service.</footer>
</main></body></html>`;
}

function mailto(address: string, subject: string): string {
  return `<a href="mailto:${esc(address)}?subject=${esc(encodeURIComponent(subject))}"><strong>${esc(address)}</strong></a>`;
}

function timeOf(date: Date): string {
  return `<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
