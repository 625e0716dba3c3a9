// The verify page (api/verify/page.ts) in a real browser: Debian's Chromium driven by
// playwright-core against the real server on 127.0.0.1, as a person on a phone or a computer uses
// it. Every outcome of the sandbox form is completed through the page (selects, typed name, the
// button by its data-outcome; POST → 303 → the page again) and checked twice: in what the page
// then says and in what a poll (X-Poll-Secret) answers. Every page is checked for what it must
// never do (load anything from another origin, log a console error or a CSP violation, carry a
// script) and for what a phone needs (no sideways scrolling, 44 px touch targets inside the
// viewport, 16 px text). A screenshot of each state at both widths goes to
// test-output/verify-page/<state>-<phone|desktop>.png for a person to look at.
//
// Chromium: CHROMIUM_PATH, else /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it).
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page, type Response } from 'playwright-core';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { verifyPageCsp } from '../api/verify/page.ts';
import { tempDataDir } from './helpers/temp.ts';
import { newSession, poll, sdnTinyCsv, type CreatedSession, type SandboxFields } from './helpers/identity.ts';

const hour = 3_600_000;
const supportEmail = 'review@example.org';
const screenshotDir = fileURLToPath(new URL('../test-output/verify-page/', import.meta.url));

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Without these Chromium reaches for the internet (updates, sync, field trials), which this
  // machine refuses; the page itself must need nothing but the server.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type Device = 'phone' | 'desktop';
const devices: Record<Device, BrowserContextOptions> = {
  phone: { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  desktop: { viewport: { width: 1280, height: 800 } },
};

/** What checkLayout measures in the page. */
interface Layout {
  scrollWidth: number;
  clientWidth: number;
  bodyFont: number;
  controls: { control: string; left: number; right: number; height: number }[];
  smallText: string[];
}

// Runs in the page (as source text: the project's TypeScript has no DOM types). The controls'
// boxes, and every element that shows text of its own and is smaller than 16 px, but the footer's
// fine print and the SANDBOX tag; the form controls' own text counts too.
const measureLayout = `(() => {
  const root = document.documentElement;
  const controls = Array.from(document.querySelectorAll('button, input, select, a.button')).map((el) => {
    const box = el.getBoundingClientRect();
    return { control: el.outerHTML.slice(0, 80), left: box.left, right: box.right, height: box.height };
  });
  const smallText = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('footer, .tag, option') || el.getClientRects().length === 0) continue;
    const ownText = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== '');
    const size = parseFloat(getComputedStyle(el).fontSize);
    if ((ownText || el.matches('input, select, button')) && size < 16) {
      smallText.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' ' + size + 'px: ' + el.textContent.trim().slice(0, 40));
    }
  }
  return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, bodyFont: parseFloat(getComputedStyle(document.body).fontSize), controls, smallText };
})()`;

/** A page with what it did recorded: requests to other origins, console errors and warnings. */
interface Watched {
  page: Page;
  device: Device;
  foreign: string[];
  console: string[];
}

describe('the verify page in Chromium', () => {
  const dataDir = tempDataDir('verify-page-browser');
  let server: RunningServer;
  let origin: string;
  let browser: Browser;
  let apiKey: string;
  let clock = Date.parse('2026-06-01T12:00:00Z');
  const contexts: BrowserContext[] = [];
  // Polls come from addresses of their own (the poll's per-address limit is not under test here).
  let pollClient = 0;
  const pollAs = (s: CreatedSession) => poll(s.poll_url, s.poll_secret, { 'X-Forwarded-For': `198.51.100.${++pollClient}` });

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) {
      throw new Error(
        `Chromium is not at ${chromiumPath}: the verify page's browser test needs it. Install it with ` +
          '`apt-get install chromium` (.ci/run does), or set CHROMIUM_PATH to a Chromium binary.',
      );
    }
    mkdirSync(screenshotDir, { recursive: true });
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      SANCTIONS_LIST_SOURCE: sdnTinyCsv,
      TRUST_PROXY_HOPS: '1',
      SUPPORT_EMAIL: supportEmail,
      // Every page load of the browser comes from 127.0.0.1 while the test clock stands still, so
      // the per-address limits of the keyless routes would count the whole file in one second.
      IP_RATE_PER_MINUTE: '100000',
      IP_RATE_PER_SECOND: '100000',
    });
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    origin = new URL(server.url).origin;
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    apiKey = (await createAccount(server.store, { plan: 'pro', name: 'Acme Data Co' }, server.keys)).api_key;
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  afterAll(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    await browser?.close();
    await server?.close();
  });

  async function open(device: Device, options: BrowserContextOptions = {}): Promise<Watched> {
    const context = await browser.newContext({ ...devices[device], ...options });
    contexts.push(context);
    const page = await context.newPage();
    const watched: Watched = { page, device, foreign: [], console: [] };
    page.on('request', (req) => {
      if (new URL(req.url()).origin !== origin) watched.foreign.push(`${req.method()} ${req.url()}`);
    });
    // CSP violations are reported as console errors.
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') watched.console.push(`${msg.type()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => watched.console.push(`pageerror: ${err.message}`));
    return watched;
  }

  /**
   * Nothing went to another origin and the console stayed quiet. A document answered with an error
   * status is logged by Chromium as a failed resource: those of `statuses` are expected.
   */
  function expectClean(w: Watched, statuses: number[] = []): void {
    expect(w.foreign).toEqual([]);
    const expected = statuses.map((s) => `error: Failed to load resource: the server responded with a status of ${s}`);
    expect(w.console.filter((line) => !expected.some((e) => line.startsWith(e)))).toEqual([]);
  }

  /** What every verify page answer must be: its CSP, no script, and usable at the device's width. */
  async function checkPage(w: Watched, response: Response, status: number): Promise<void> {
    expect(response.status()).toBe(status);
    const headers = response.headers();
    expect(headers['content-security-policy']).toBe(verifyPageCsp);
    expect(headers['content-type']).toMatch(/^text\/html/);
    expect(await response.text()).not.toMatch(/<script/i);
    expect(await w.page.locator('script').count()).toBe(0);
    await checkLayout(w);
  }

  async function checkLayout(w: Watched): Promise<void> {
    const layout = await w.page.evaluate<Layout>(measureLayout);
    expect(layout.scrollWidth, 'the document scrolls sideways').toBeLessThanOrEqual(layout.clientWidth);
    expect(layout.bodyFont).toBeGreaterThanOrEqual(16);
    expect(layout.smallText).toEqual([]);
    for (const c of layout.controls) {
      expect(c.height, `${c.control} is too short to tap`).toBeGreaterThanOrEqual(44);
      expect(c.left, `${c.control} starts left of the viewport`).toBeGreaterThanOrEqual(0);
      expect(c.right, `${c.control} ends right of the viewport`).toBeLessThanOrEqual(layout.clientWidth);
    }
  }

  async function visit(w: Watched, url: string, status = 200): Promise<Response> {
    const response = await w.page.goto(url, { waitUntil: 'load' });
    if (!response) throw new Error(`no response for ${url}`);
    await checkPage(w, response, status);
    return response;
  }

  /**
   * Fills the sandbox form as a person does (the selects, the name typed) and presses the button of
   * the outcome; answers the page it lands on, after the 303 when the form was taken.
   */
  async function submit(w: Watched, choice: SandboxFields, status = 200): Promise<Response> {
    const { page } = w;
    if (choice.jurisdiction) await page.locator('#jurisdiction').selectOption(choice.jurisdiction);
    if (choice.age) await page.locator('#age').selectOption(choice.age);
    if (choice.name !== undefined) {
      await page.locator('#name').clear();
      await page.locator('#name').pressSequentially(choice.name);
    }
    const landed = page.waitForResponse((r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame() && !(r.status() >= 300 && r.status() < 400));
    const loaded = page.waitForEvent('load');
    await page.locator(`button[data-outcome="${choice.outcome}"]`).click();
    const response = await landed;
    await loaded;
    if (status === 200) {
      // POST → 303 → GET of the page.
      expect(response.request().method()).toBe('GET');
      const post = response.request().redirectedFrom();
      expect(post?.method()).toBe('POST');
      expect((await post!.response())?.status()).toBe(303);
    }
    await checkPage(w, response, status);
    return response;
  }

  async function screenshot(w: Watched, state: string): Promise<void> {
    await w.page.screenshot({ path: `${screenshotDir}${state}-${w.device}.png`, fullPage: true });
  }

  const mainText = (w: Watched) => w.page.locator('main').innerText();
  const outcomeButtons = (w: Watched) => w.page.locator('button[data-outcome]');

  describe.each(['phone', 'desktop'] as const)('on a %s', (device) => {
    it('pending, then verified: the page says complete and the poll delivers the operator token', async () => {
      const s = await newSession(server.url, apiKey, { product_name: 'Premium weather report' });
      const w = await open(device);
      await visit(w, s.verify_url);
      const pending = await mainText(w);
      expect(pending).toContain('Verify your identity for Premium weather report');
      expect(pending).toContain('Acme Data Co');
      expect(pending).toContain('SANDBOX');
      expect(await outcomeButtons(w).count()).toBe(2);
      await screenshot(w, 'pending');

      await submit(w, { outcome: 'verified', jurisdiction: 'DE', age: '18+', name: 'Margaret Whitfield' });
      const done = await mainText(w);
      expect(done).toContain('Verification complete.');
      expect(await w.page.locator('form').count()).toBe(0);
      await screenshot(w, 'verified');

      const polled = await pollAs(s);
      expect(polled.body.status).toBe('verified');
      expect(polled.body.operator_token).toMatch(/^opc_[A-Za-z0-9]{32}$/);
      // What the selects chose is what the operator was verified with.
      const token = server.identity.deps.state.tokens.verify(polled.body.operator_token, new Date(clock));
      const operator = server.identity.deps.state.operators.get(token.kind === 'active' ? token.token.operatorId : '');
      expect(operator).toMatchObject({ jurisdiction: 'DE', ageVerified: true, ageBracket: '18+', sanctionsResult: 'clear' });
      // Once the token is delivered the page still says complete.
      expect((await pollAs(s)).body.status).toBe('consumed');
      await visit(w, s.verify_url);
      expect(await mainText(w)).toContain('Verification complete.');
      expectClean(w);
    });

    it('failed: the page offers a retry, and the retry verifies', async () => {
      const s = await newSession(server.url, apiKey);
      const w = await open(device);
      await visit(w, s.verify_url);
      await submit(w, { outcome: 'failed' });
      const failed = await mainText(w);
      expect(failed).toContain('The verification did not succeed.');
      expect(failed).toContain('attempt 2 of 3');
      expect(failed).toContain('2026-');
      expect(await outcomeButtons(w).count()).toBe(2);
      await screenshot(w, 'failed');
      const polled = await pollAs(s);
      expect(polled.body).toMatchObject({ status: 'failed', failure_code: 'document_unverified_other', next_steps: { retry_until: s.expires_at } });
      expect(polled.body.operator_token).toBeUndefined();

      await submit(w, { outcome: 'verified', jurisdiction: 'US', age: '21+', name: 'Margaret Whitfield' });
      expect(await mainText(w)).toContain('Verification complete.');
      const retried = await pollAs(s);
      expect(retried.body.status).toBe('verified');
      expect(retried.body.operator_token).toMatch(/^opc_/);
      expectClean(w);
    });

    it('flagged: a listed name leads to a manual review with the support address', async () => {
      const s = await newSession(server.url, apiKey);
      const w = await open(device);
      await visit(w, s.verify_url);
      await submit(w, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      const flagged = await mainText(w);
      expect(flagged).toContain('manual review');
      expect(flagged).toContain(supportEmail);
      expect(flagged).toContain(`Identity review for verification session ${s.session_id}`);
      expect(await w.page.locator('form').count()).toBe(0);
      await screenshot(w, 'flagged');
      const polled = await pollAs(s);
      expect(polled.body).toMatchObject({ status: 'flagged', next_steps: { action: 'contact_support', support_email: supportEmail } });
      expect(polled.body.operator_token).toBeUndefined();
      expectClean(w);
    });

    it('expired: past one hour the page says the link expired and offers no form', async () => {
      const s = await newSession(server.url, apiKey);
      const w = await open(device);
      await visit(w, s.verify_url);
      expect(await outcomeButtons(w).count()).toBe(2);
      clock += hour;
      await visit(w, s.verify_url);
      const expired = await mainText(w);
      expect(expired).toContain('This link has expired.');
      expect(expired).toContain('Ask your agent to start again');
      expect(await w.page.locator('form, button, input, select').count()).toBe(0);
      await screenshot(w, 'expired');
      expect((await pollAs(s)).body).toMatchObject({ status: 'expired', next_steps: { action: 'create_new_session' } });
      expectClean(w);
    });

    it('an unknown session: the not-found page (404)', async () => {
      const w = await open(device);
      await visit(w, `${server.url}/verify/sess_0000000000aaaaaaaaaaaa`, 404);
      const text = await mainText(w);
      expect(text).toContain('Verification link not found');
      expect(await w.page.locator('form, button').count()).toBe(0);
      await screenshot(w, 'unknown');
      expectClean(w, [404]);
    });
  });

  describe('without JavaScript', () => {
    it('a failure, a form sent incomplete, and a retry to verified all work', async () => {
      const s = await newSession(server.url, apiKey);
      const w = await open('phone', { javaScriptEnabled: false });
      await visit(w, s.verify_url);
      await submit(w, { outcome: 'failed' });
      expect(await mainText(w)).toContain('The verification did not succeed.');
      // The name left out: the page says what is missing and keeps the form (400, nothing recorded).
      await submit(w, { outcome: 'verified', jurisdiction: 'FR', age: '21+', name: '' }, 400);
      expect(await w.page.getByRole('alert').innerText()).toContain('Type the name');
      expect(await outcomeButtons(w).count()).toBe(2);
      await screenshot(w, 'problem');
      expect((await pollAs(s)).body.status).toBe('failed');
      await submit(w, { outcome: 'verified', jurisdiction: 'FR', age: '21+', name: 'Margaret Whitfield' });
      expect(await mainText(w)).toContain('Verification complete.');
      expect((await pollAs(s)).body.status).toBe('verified');
      expectClean(w, [400]);
    });
  });

  it('enforces its CSP: a style not pinned by its hash is refused, and the refusal reaches the console', async () => {
    // The check that the console stays quiet is only worth something if a violation shows there.
    const s = await newSession(server.url, apiKey);
    const w = await open('desktop');
    await visit(w, s.verify_url);
    // The page's own style applies (its hash is in the CSP) ...
    expect(await w.page.evaluate('getComputedStyle(document.querySelector("main")).maxWidth')).toBe('544px');
    // ... and any other is refused.
    const violation = w.page.waitForEvent('console', (msg) => msg.type() === 'error' && msg.text().includes('Content Security Policy'));
    await w.page.evaluate(`document.head.append(Object.assign(document.createElement('style'), { textContent: 'body{background:rgb(255, 0, 0)}' }))`);
    expect((await violation).text()).toContain("style-src 'sha256-");
    expect(await w.page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(244, 245, 247)');
    expect(w.foreign).toEqual([]);
  });

  // Another loopback port is another origin of the same site (Sec-Fetch-Site: same-site);
  // localhost is another site altogether (cross-site). The route takes neither.
  it.each([
    ['127.0.0.1', 'same-site'],
    ['localhost', 'cross-site'],
  ])('refuses a form another origin (%s) posts to verify_url: 403, and nothing changes', async (host, site) => {
    const s = await newSession(server.url, apiKey);
    const attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Win a prize</title>
<form id="f" method="post" action="${s.verify_url}">
<input name="outcome" value="verified"><input name="jurisdiction" value="US"><input name="age" value="21+"><input name="name" value="Margaret Whitfield">
</form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    try {
      const attackerUrl = `http://${host}:${(attacker.address() as AddressInfo).port}/`;
      const w = await open('desktop');
      const posted = w.page.waitForResponse((r) => r.url() === s.verify_url && r.request().method() === 'POST');
      // The attacker's page submits its form while it loads: wait only for it to be there.
      await w.page.goto(attackerUrl, { waitUntil: 'commit' });
      const response = await posted;
      expect(response.status()).toBe(403);
      expect(await response.request().headerValue('sec-fetch-site')).toBe(site);
      expect(response.headers()['content-security-policy']).toBe(verifyPageCsp);
      // Nothing changed: the session is pending, its page still offers the form.
      expect((await pollAs(s)).body.status).toBe('pending');
      const own = await open('desktop');
      await visit(own, s.verify_url);
      expect(await outcomeButtons(own).count()).toBe(2);
      expect(await mainText(own)).not.toContain('did not succeed');
      expectClean(own);
    } finally {
      attacker.closeAllConnections();
      await new Promise((resolve) => attacker.close(resolve));
    }
  });
});
