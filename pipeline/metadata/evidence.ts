// Outside evidence that an agent exists beyond its registration file: an A2A agent card that
// answers, a website that answers and talks about MCP or x402, a GitHub repository. Gathered by
// the fetch-metadata job, never on the request path, with the same safety rules as the fetcher.
import type { ParsedRegistration } from './parse-registration.ts';
import { safeGet, type FetchOptions } from './safe-get.ts';

export interface AgentEvidence {
  has_a2a_agent_card: boolean;
  website_url: string | null;
  /** null when there is no website to try. */
  website_reachable: boolean | null;
  website_mentions_mcp: boolean | null;
  website_mentions_x402: boolean | null;
  github_url: string | null;
  /** Always null for now: this deployment has no route to the GitHub API. */
  github_stars: number | null;
}

const mentionsMcp = /\b(?:mcp|model context protocol)\b/i;
const mentionsX402 = /\bx402\b/i;
const githubRepo = /https?:\/\/(?:www\.)?github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)/gi;
// github.com paths that are not owners.
const githubReserved = new Set(['orgs', 'sponsors', 'topics', 'features', 'marketplace', 'settings', 'apps', 'collections']);

export async function gatherEvidence(parsed: ParsedRegistration, options: FetchOptions = {}): Promise<AgentEvidence> {
  const website = websiteUrl(parsed);
  const [hasCard, site] = await Promise.all([hasA2aAgentCard(parsed, options), website ? checkWebsite(website, options) : null]);
  return {
    has_a2a_agent_card: hasCard,
    website_url: website,
    website_reachable: site?.reachable ?? null,
    website_mentions_mcp: site?.mentionsMcp ?? null,
    website_mentions_x402: site?.mentionsX402 ?? null,
    github_url: githubUrl(parsed),
    github_stars: null,
  };
}

const httpUrl = (value: string): URL | null => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
};

// A file may list any number of services; checking a few bounds the requests one agent can cause.
const maxA2aServicesChecked = 3;

async function hasA2aAgentCard(parsed: ParsedRegistration, options: FetchOptions): Promise<boolean> {
  for (const service of parsed.services.filter((s) => s.name.toLowerCase() === 'a2a').slice(0, maxA2aServicesChecked)) {
    const endpoint = httpUrl(service.endpoint);
    if (!endpoint) continue;
    // The endpoint is usually the card itself; when it is the agent's API, the card sits at the
    // well-known path of its origin.
    const candidates = [endpoint.href, `${endpoint.origin}/.well-known/agent-card.json`];
    for (const url of new Set(candidates)) {
      if (await isAgentCard(url, options)) return true;
    }
  }
  return false;
}

async function isAgentCard(url: string, options: FetchOptions): Promise<boolean> {
  const answer = await safeGet(url, { ...options, accept: 'application/json' });
  if (!answer.ok) return false;
  try {
    const card: unknown = JSON.parse(answer.body.toString('utf8'));
    return typeof card === 'object' && card !== null && typeof (card as { name?: unknown }).name === 'string';
  } catch {
    return false;
  }
}

function websiteUrl(parsed: ParsedRegistration): string | null {
  const fromService = parsed.services.find((s) => ['web', 'website'].includes(s.name.toLowerCase()) && httpUrl(s.endpoint));
  const candidate = fromService?.endpoint ?? parsed.website;
  return candidate && httpUrl(candidate) ? candidate : null;
}

async function checkWebsite(url: string, options: FetchOptions) {
  // A home page may be larger than a registration file; its first maxBytes are enough to look for words.
  const answer = await safeGet(url, { ...options, accept: 'text/html, */*;q=0.5', truncate: true });
  if (!answer.ok) return { reachable: false, mentionsMcp: null, mentionsX402: null };
  const text = answer.body.toString('utf8');
  return { reachable: true, mentionsMcp: mentionsMcp.test(text), mentionsX402: mentionsX402.test(text) };
}

function githubUrl(parsed: ParsedRegistration): string | null {
  const texts = [...parsed.services.map((s) => s.endpoint), parsed.website ?? '', parsed.description ?? ''];
  for (const text of texts) {
    for (const [, owner, repo] of text.matchAll(githubRepo)) {
      const name = repo!.replace(/\.git$/i, '').replace(/[.]+$/, '');
      if (name && !githubReserved.has(owner!.toLowerCase())) return `https://github.com/${owner}/${name}`;
    }
  }
  return null;
}
