// gatherEvidence against a real HTTPS loopback server playing agent cards and websites.
import { beforeAll, describe, expect, it } from 'vitest';
import { gatherEvidence } from '../pipeline/metadata/evidence.ts';
import { parseRegistration } from '../pipeline/metadata/parse-registration.ts';
import type { FetchOptions } from '../pipeline/metadata/safe-get.ts';
import { sendJson, startLoopbackServer, type LoopbackServer } from './helpers/loopback-server.ts';

let server: LoopbackServer;
// An origin with no valid card anywhere, its well-known path included.
let cardless: LoopbackServer;
let options: FetchOptions;
let cardlessHits = 0;

beforeAll(async () => {
  server = await startLoopbackServer(
    (req, res) => {
      // Addressed by name (localhost) the server has no agent card anywhere.
      if (req.headers.host?.startsWith('localhost:')) {
        cardlessHits++;
        return sendJson(res, { error: 'not found' }, 404);
      }
      switch (req.url) {
        case '/card.json':
        case '/.well-known/agent-card.json':
          return sendJson(res, { name: 'Loopback Agent', skills: [] });
        case '/nameless-card.json':
          return sendJson(res, { skills: [] });
        case '/a2a':
          // The agent's JSON-RPC endpoint, not its card: the card is at the well-known path.
          return sendJson(res, { error: 'POST only' }, 405);
        case '/site':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<html><body>Pay per call with <b>x402</b>; tools over MCP.</body></html>');
        case '/plain-site':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end(`<html><body>${'Nothing about protocols here: mcpx, x4020. '.repeat(20_000)}</body></html>`);
        case '/protocol-site':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<p>Tools over the Model Context Protocol.</p>');
        case '/long-site':
          // One write: the mention just past the limit arrives in the same chunk as the text before it.
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end(`${'a'.repeat(1_000)} MCP x402`);
        case '/broken-site':
          res.writeHead(503);
          return void res.end('down');
        default:
          return sendJson(res, { error: 'not found' }, 404);
      }
    },
    { tls: true },
  );
  cardless = await startLoopbackServer((req, res) => {
    switch (req.url) {
      case '/nameless-card.json':
        return sendJson(res, { skills: [] });
      case '/card-list.json':
        return sendJson(res, [{ name: 'Loopback Agent' }]);
      case '/.well-known/agent-card.json':
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<p>no card</p>');
      default:
        return sendJson(res, { error: 'not found' }, 404);
    }
  });
  options = { allowPrivateAddresses: true, ca: server.ca };
});

const evidenceFor = (file: unknown, opts: FetchOptions = options) => gatherEvidence(parseRegistration(file), opts);

describe('gatherEvidence', () => {
  it('finds an A2A card at the endpoint, or at the well-known path of its origin', async () => {
    const direct = await evidenceFor({ services: [{ name: 'A2A', endpoint: `${server.origin}/card.json` }] });
    expect(direct.has_a2a_agent_card).toBe(true);
    const wellKnown = await evidenceFor({ services: [{ name: 'a2a', endpoint: `${server.origin}/a2a` }] });
    expect(wellKnown.has_a2a_agent_card).toBe(true);
  });

  it('checks at most three A2A services of a file', async () => {
    const cardless = (n: number) => ({ name: 'A2A', endpoint: `https://localhost:${server.port}/a2a-${n}` });
    const before = cardlessHits;
    const fourth = await evidenceFor({ services: [cardless(1), cardless(2), cardless(3), { name: 'A2A', endpoint: `${server.origin}/card.json` }] });
    expect(fourth.has_a2a_agent_card).toBe(false);
    // Each of the three: the endpoint, then the well-known path of its origin.
    expect(cardlessHits - before).toBe(6);
    const third = await evidenceFor({ services: [cardless(1), cardless(2), { name: 'A2A', endpoint: `${server.origin}/card.json` }] });
    expect(third.has_a2a_agent_card).toBe(true);
  });

  it('wants a card with a name, from a service named A2A', async () => {
    const other = await evidenceFor({ services: [{ name: 'MCP', endpoint: `${server.origin}/card.json` }] });
    expect(other.has_a2a_agent_card).toBe(false);
    const unreachable = await evidenceFor({ services: [{ name: 'A2A', endpoint: 'https://no-such-host.invalid/card.json' }] });
    expect(unreachable.has_a2a_agent_card).toBe(false);
    for (const path of ['/nameless-card.json', '/card-list.json']) {
      expect((await evidenceFor({ services: [{ name: 'A2A', endpoint: `${cardless.origin}${path}` }] })).has_a2a_agent_card, path).toBe(false);
    }
  });

  it('goes on past an A2A service whose endpoint is not http(s)', async () => {
    const evidence = await evidenceFor({ services: [{ name: 'A2A', endpoint: 'mailto:agent@loopback.dev' }, { name: 'A2A', endpoint: `${server.origin}/card.json` }] });
    expect(evidence.has_a2a_agent_card).toBe(true);
  });

  it('checks the website and looks for MCP and x402 as words', async () => {
    expect(await evidenceFor({ services: [{ name: 'web', endpoint: `${server.origin}/site` }] })).toMatchObject({
      website_url: `${server.origin}/site`,
      website_reachable: true,
      website_mentions_mcp: true,
      website_mentions_x402: true,
    });
    // A page larger than maxBytes is read up to the limit, not refused.
    expect(await evidenceFor({ url: `${server.origin}/plain-site` })).toMatchObject({
      website_url: `${server.origin}/plain-site`,
      website_reachable: true,
      website_mentions_mcp: false,
      website_mentions_x402: false,
    });
    expect(await evidenceFor({ website: `${server.origin}/protocol-site` })).toMatchObject({ website_reachable: true, website_mentions_mcp: true });
    // Only the first maxBytes are read, to the byte.
    expect(await evidenceFor({ website: `${server.origin}/long-site` }, { ...options, maxBytes: 1_000 })).toMatchObject({
      website_reachable: true,
      website_mentions_mcp: false,
      website_mentions_x402: false,
    });
    expect(await evidenceFor({ website: `${server.origin}/broken-site` })).toMatchObject({
      website_reachable: false,
      website_mentions_mcp: null,
      website_mentions_x402: null,
    });
  });

  it('applies the fetcher safety rules', async () => {
    const evidence = await evidenceFor(
      { services: [{ name: 'A2A', endpoint: `${server.origin}/card.json` }, { name: 'website', endpoint: `${server.origin}/site` }] },
      { ...options, allowPrivateAddresses: false },
    );
    expect(evidence).toMatchObject({ has_a2a_agent_card: false, website_reachable: false });
    // Private addresses are refused unless allowed.
    const byDefault = await evidenceFor(
      { services: [{ name: 'A2A', endpoint: `${server.origin}/card.json` }, { name: 'website', endpoint: `${server.origin}/site` }] },
      { ca: server.ca },
    );
    expect(byDefault).toMatchObject({ has_a2a_agent_card: false, website_reachable: false });
  });

  it('takes the website from a web service before the file\'s own website field, and only an http(s) one', async () => {
    const both = await evidenceFor({ website: `${server.origin}/broken-site`, services: [{ name: 'Website', endpoint: `${server.origin}/site` }] });
    expect(both).toMatchObject({ website_url: `${server.origin}/site`, website_reachable: true });
    const mailOnly = await evidenceFor({ website: `${server.origin}/site`, services: [{ name: 'web', endpoint: 'mail@quiet.dev' }] });
    expect(mailOnly).toMatchObject({ website_url: `${server.origin}/site`, website_reachable: true });
  });

  it('finds a GitHub repository in services or the description, without calling GitHub', async () => {
    expect(await evidenceFor({ description: 'Code at https://github.com/ondefy/erc8004-implementation.git, stars welcome.' })).toMatchObject({
      github_url: 'https://github.com/ondefy/erc8004-implementation',
      github_stars: null,
    });
    expect((await evidenceFor({ services: [{ name: 'github', endpoint: 'https://www.github.com/agntcy/oasf/tree/v0.8.0' }] })).github_url).toBe(
      'https://github.com/agntcy/oasf',
    );
    // Not an owner (orgs/...), and not the full stop that ends the sentence.
    expect((await evidenceFor({ description: 'By https://github.com/orgs/acme, code at https://github.com/acme/agent-kit.' })).github_url).toBe(
      'https://github.com/acme/agent-kit',
    );
  });

  it('reports nothing for a file with nothing to check', async () => {
    expect(await evidenceFor({ name: 'Quiet', services: [{ name: 'web', endpoint: 'mail@quiet.dev' }] })).toEqual({
      has_a2a_agent_card: false,
      website_url: null,
      website_reachable: null,
      website_mentions_mcp: null,
      website_mentions_x402: null,
      github_url: null,
      github_stars: null,
    });
  });
});
