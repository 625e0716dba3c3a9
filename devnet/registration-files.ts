// The documents simulated agents publish: ERC-8004 registration files in the variants seen in the
// wild, A2A agent cards, small websites, and the real files sampled in fixtures/.
import { readFileSync } from 'node:fs';
import type { Address } from 'viem';
import type { Prng } from './prng.ts';

/** How an agentURI carries the registration file. `catalog`: a real file from fixtures/, over https. */
export type UriKind = 'https' | 'data-base64' | 'data-plain' | 'catalog';

export type RegistrationFile = Record<string, unknown>;

export interface CatalogFile {
  source: { chain: string; id: number; registeredBlock?: number };
  file: RegistrationFile;
}

/** The 200 real registration files of fixtures/registration-files.jsonl, in file order. */
export function loadCatalogFiles(): CatalogFile[] {
  const text = readFileSync(new URL('./fixtures/registration-files.jsonl', import.meta.url), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CatalogFile);
}

/** What a correct reader of a registration file should find in it, whichever variant it uses. */
export interface RegistrationSummary {
  name: string | null;
  /** Names (or, in some older files, types) of the entries of `services`, or of the older `endpoints`. */
  serviceNames: string[];
  /** `x402Support`, or the lower-case `x402support`. */
  x402Support: boolean | null;
  /** `supportedTrust`, or the plural `supportedTrusts`; strings only. */
  supportedTrust: string[];
  active: boolean | null;
}

export function summarize(file: RegistrationFile): RegistrationSummary {
  const services = Array.isArray(file.services) ? file.services : Array.isArray(file.endpoints) ? file.endpoints : [];
  const x402 = file.x402Support ?? file.x402support;
  const trust = file.supportedTrust ?? file.supportedTrusts;
  return {
    name: typeof file.name === 'string' ? file.name : null,
    serviceNames: services.flatMap((s: unknown) => {
      const entry = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
      const name = entry.name ?? entry.type;
      return typeof name === 'string' ? [name] : [];
    }),
    x402Support: typeof x402 === 'boolean' ? x402 : null,
    supportedTrust: Array.isArray(trust) ? trust.filter((t): t is string => typeof t === 'string') : [],
    active: typeof file.active === 'boolean' ? file.active : null,
  };
}

/** `data:application/json;base64,...` as the spec recommends, or the plain URL-encoded form some agents use. */
export function dataUri(file: RegistrationFile, kind: 'data-base64' | 'data-plain'): string {
  const json = JSON.stringify(file);
  return kind === 'data-base64'
    ? `data:application/json;base64,${Buffer.from(json).toString('base64')}`
    : `data:application/json,${encodeURIComponent(json)}`;
}

const ADJECTIVES = ['Nexus', 'Echo', 'Quantum', 'Nebula', 'Atlas', 'Orbit', 'Signal', 'Vector', 'Cipher', 'Lumen', 'Sable', 'Onyx'];
const NOUNS = ['Navigator', 'Weaver', 'Scribe', 'Oracle', 'Broker', 'Scout', 'Analyst', 'Courier', 'Sentinel', 'Curator'];
const SKILLS = [
  'market data',
  'web search',
  'code review',
  'translation',
  'image generation',
  'on-chain analytics',
  'security scanning',
  'weather forecasts',
  'travel booking',
  'document summarization',
];

/** One simulated agent's identity and style, drawn once so every version of its files agrees. */
export interface Persona {
  /** URL-safe and unique per agent. */
  slug: string;
  name: string;
  skill: string;
  x402: boolean;
  /** Files in the wild sometimes look unfinished: name "test", no description, no services. */
  placeholder: boolean;
  servicesKey: 'services' | 'endpoints';
  x402Key: 'x402Support' | 'x402support' | null;
  trustKey: 'supportedTrust' | 'supportedTrusts' | null;
  hasWebsite: boolean;
  hasAgentCard: boolean;
  hasMcp: boolean;
  extras: ('OASF' | 'ENS' | 'DID' | 'email')[];
}

export function drawPersona(rng: Prng, index: number): Persona {
  const name = `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
  return {
    slug: `agent-${index}`,
    name: rng.chance(0.3) ? `${name} ${rng.between(2, 99)}` : name,
    skill: rng.pick(SKILLS),
    x402: rng.chance(0.6),
    placeholder: rng.chance(0.08),
    servicesKey: rng.chance(0.8) ? 'services' : 'endpoints',
    x402Key: rng.chance(0.85) ? 'x402Support' : rng.chance(0.7) ? 'x402support' : null,
    trustKey: rng.chance(0.55) ? 'supportedTrust' : rng.chance(0.45) ? 'supportedTrusts' : null,
    hasWebsite: rng.chance(0.5),
    hasAgentCard: rng.chance(0.4),
    hasMcp: rng.chance(0.5),
    extras: (['OASF', 'ENS', 'DID', 'email'] as const).filter(() => rng.chance(0.15)),
  };
}

/** Where an agent's own documents live on the registration server. */
export function agentPaths(persona: Persona) {
  const base = `/a/${persona.slug}`;
  return {
    website: `${base}/`,
    agentCard: `${base}/.well-known/agent-card.json`,
    mcp: `${base}/mcp`,
    a2a: `${base}/a2a`,
  };
}

export interface FileContext {
  baseUrl: string;
  chainId: number;
  identityRegistry: Address;
  /** Known only once the registration is mined; files written before (data: URIs) leave it out. */
  agentId?: number;
  /** The current owner, for the older files that list the payment wallet as an endpoint. */
  owner: Address;
  /** Later versions of a file (after setAgentURI) say so. */
  version: number;
}

/** A registration file in the spec's shape, with the persona's variant of each contested key. */
export function registrationFile(persona: Persona, ctx: FileContext): RegistrationFile {
  const paths = agentPaths(persona);
  const url = (path: string) => `${ctx.baseUrl}${path}`;
  const description = persona.placeholder
    ? ''
    : `${persona.name} offers ${persona.skill} to people and other agents.` +
      (persona.x402 ? ' Pay per call with x402 (USDC).' : '') +
      (ctx.version > 1 ? ` Version ${ctx.version}.` : '');
  const services = persona.placeholder
    ? []
    : [
        ...(persona.hasWebsite ? [{ name: 'web', endpoint: url(paths.website) }] : []),
        ...(persona.hasAgentCard ? [{ name: 'A2A', endpoint: url(paths.agentCard), version: '0.3.0' }] : []),
        ...(persona.hasMcp ? [{ name: 'MCP', endpoint: url(paths.mcp), version: '2025-06-18' }] : []),
        ...persona.extras.map((extra) => extraService(extra, persona)),
        // Files written before the Jan 2026 spec update listed the payment wallet as an endpoint.
        ...(persona.servicesKey === 'endpoints' ? [{ name: 'agentWallet', endpoint: `eip155:${ctx.chainId}:${ctx.owner}` }] : []),
      ];
  const agentRegistry = `eip155:${ctx.chainId}:${ctx.identityRegistry}`;
  return {
    type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1',
    name: persona.placeholder ? 'test' : persona.name,
    description,
    image: persona.placeholder ? '' : url(`/a/${persona.slug}/avatar.svg`),
    [persona.servicesKey]: services,
    ...(persona.x402Key ? { [persona.x402Key]: persona.x402 } : {}),
    active: true,
    registrations: ctx.agentId === undefined ? [] : [{ agentId: ctx.agentId, agentRegistry }],
    ...(persona.trustKey ? { [persona.trustKey]: ['reputation'] } : {}),
  };
}

function extraService(extra: Persona['extras'][number], persona: Persona): Record<string, unknown> {
  switch (extra) {
    case 'OASF':
      return { name: 'OASF', endpoint: `ipfs://bafy${persona.slug.replace(/-/g, '')}`, version: '0.8', skills: [], domains: [] };
    case 'ENS':
      return { name: 'ENS', endpoint: `${persona.slug}.eth`, version: 'v1' };
    case 'DID':
      return { name: 'DID', endpoint: `did:web:agents.example:${persona.slug}`, version: 'v1' };
    case 'email':
      return { name: 'email', endpoint: `${persona.slug}@agents.example` };
  }
}

/** An A2A agent card (protocol 0.3), served at the card URL the registration file names. */
export function agentCard(persona: Persona, baseUrl: string): Record<string, unknown> {
  return {
    protocolVersion: '0.3.0',
    name: persona.name,
    description: `${persona.name}: ${persona.skill}.`,
    url: `${baseUrl}${agentPaths(persona).a2a}`,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: persona.skill.replace(/ /g, '-'), name: persona.skill, description: `Answers ${persona.skill} requests.`, tags: [persona.skill] }],
  };
}

/** The agent's website: a human-facing page that names its MCP endpoint and x402 pricing. */
export function websitePage(persona: Persona, baseUrl: string): string {
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${persona.name}</title></head><body>`,
    `<h1>${persona.name}</h1>`,
    `<p>${persona.name} offers ${persona.skill}.</p>`,
    `<p>Connect over MCP at <code>${baseUrl}${agentPaths(persona).mcp}</code>.</p>`,
    persona.x402 ? '<p>Pay per call with x402: USDC, settled by a facilitator, no account needed.</p>' : '',
    '</body></html>',
    '',
  ].join('\n');
}

export const AVATAR_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="30" fill="#4a7"/></svg>\n';

/** What some registration URLs answer instead of JSON, like thousands of real agentURIs do. */
export const NOT_A_REGISTRATION_PAGE = '<!doctype html>\n<html><head><title>Coming soon</title></head><body>Coming soon</body></html>\n';
