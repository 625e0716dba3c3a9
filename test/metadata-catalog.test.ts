// Every registration file of the real catalog (29,099 mainnet registrations as published) goes
// through parseRegistration and classifyMetadataQuality without throwing; the quality
// distribution is printed, and a few entries are checked against a human reading of them.
import { existsSync, createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FetchRegistrationResult } from '../pipeline/metadata/fetch-registration.ts';
import { parseRegistration, type ParsedRegistration } from '../pipeline/metadata/parse-registration.ts';
import { classifyMetadataQuality, type MetadataQuality } from '../pipeline/metadata/quality.ts';

const catalog = new URL('../../shared/data/erc8004/agents-catalog-2026-03-18.jsonl', import.meta.url);
const present = existsSync(catalog);
if (!present) console.warn(`skipping the catalog test: ${catalog.pathname} is absent`);

interface Entry {
  id: number;
  chain: string;
  parsed: ParsedRegistration | null;
  quality: MetadataQuality;
}

const entries = new Map<string, Entry>();
const counts = { lines: 0, stubs: 0, emptyFiles: 0, usesEndpoints: 0, usesLowercaseX402: 0, usesSupportedTrusts: 0, withServices: 0 };
const byQuality: Record<MetadataQuality, number> = { real: 0, placeholder: 0, unknown: 0 };

describe.skipIf(!present)('the real registration catalog', () => {
  beforeAll(async () => {
    const lines = createInterface({ input: createReadStream(catalog), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      counts.lines++;
      const record = JSON.parse(line) as { id: number; chain: string; rawMetadata?: Record<string, unknown>; error?: string };
      // Lines without rawMetadata are the catalog's own fetch failures.
      const fetched: FetchRegistrationResult =
        record.rawMetadata === undefined
          ? { ok: false, status: 'network_error', error: record.error ?? 'no file' }
          : { ok: true, kind: 'json', body: record.rawMetadata, sha256: '' };
      const parsed = fetched.ok ? parseRegistration(record.rawMetadata) : null;
      const quality = classifyMetadataQuality(parsed, fetched);
      byQuality[quality]++;
      entries.set(`${record.chain}:${record.id}`, { id: record.id, chain: record.chain, parsed, quality });

      const raw = record.rawMetadata;
      if (!raw) counts.stubs++;
      else {
        if (Object.keys(raw).length === 0) counts.emptyFiles++;
        if ('endpoints' in raw && !('services' in raw)) counts.usesEndpoints++;
        if ('x402support' in raw) counts.usesLowercaseX402++;
        if ('supportedTrusts' in raw) counts.usesSupportedTrusts++;
        if (parsed && parsed.services.length > 0) counts.withServices++;
      }
    }
    console.log('catalog', counts, 'quality', byQuality);
  });

  it('parses every line without throwing', () => {
    expect(counts.lines).toBe(29_099);
    expect(counts.stubs).toBe(4_561);
    expect(entries.size).toBe(29_099);
    expect(counts.usesEndpoints).toBeGreaterThan(0);
    expect(counts.usesLowercaseX402).toBeGreaterThan(0);
    expect(counts.usesSupportedTrusts).toBeGreaterThan(0);
  });

  it('has a sensible quality distribution', () => {
    // Only the catalog's failed fetches are unknown; every empty file is a placeholder; real
    // agents are a small minority of mainnet registrations.
    expect(byQuality.unknown).toBe(counts.stubs);
    expect(byQuality.placeholder).toBeGreaterThan(counts.emptyFiles);
    expect(byQuality.real).toBeGreaterThan(2_000);
    expect(byQuality.real).toBeLessThan(byQuality.placeholder / 4);
  });

  it('puts specific entries where a human would', () => {
    const quality = (id: number, chain = 'ethereum') => entries.get(`${chain}:${id}`)?.quality;
    // {}: registered without a file.
    expect(quality(0)).toBe('placeholder');
    // name "1", description "1111…".
    expect(quality(10001)).toBe('placeholder');
    // name "test" on a hosted agent platform: a test registration, endpoints notwithstanding.
    expect(quality(10175)).toBe('placeholder');
    // One of a fleet: "AxiAgent_7422", a stock description, no services.
    expect(quality(16489)).toBe('placeholder');
    // "Agents 18640", a stock description, no services.
    expect(quality(18623)).toBe('placeholder');
    // "main-test-1" with endpoints "example.com", "email@example.com", "mcp-endpoint".
    expect(quality(28281)).toBe('placeholder');
    // Zyfai rebalancer: a specific name, a description, web and MCP endpoints.
    expect(quality(28504)).toBe('real');
    // Olas "service/valory/optimus/0.1.0": an Optimism liquidity trader with a marketplace page.
    expect(quality(7184)).toBe('real');
    // EleosAgent: AI content detection for Ethos Network, described at length.
    expect(quality(9675)).toBe('real');
    // The catalog could not fetch this one (an HTML page instead of JSON).
    expect(quality(10167, 'unknown')).toBe('unknown');
  });

  it('normalises the real variants', () => {
    // `services` entries spelled {type, url}.
    expect(entries.get('ethereum:21869')?.parsed?.services).toEqual([{ name: 'website', endpoint: 'https://a8004.xyz' }]);
  });
});
