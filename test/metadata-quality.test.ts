// classifyMetadataQuality rule by rule, on hand-made files shaped like the real ones.
import { describe, expect, it } from 'vitest';
import type { FetchRegistrationResult } from '../pipeline/metadata/fetch-registration.ts';
import { parseRegistration } from '../pipeline/metadata/parse-registration.ts';
import { classifyMetadataQuality } from '../pipeline/metadata/quality.ts';
import { specExample } from './helpers/registration-examples.ts';

const fetched = (body: unknown): FetchRegistrationResult => ({ ok: true, kind: 'https', body, sha256: '0'.repeat(64) });
const quality = (body: unknown) => classifyMetadataQuality(parseRegistration(body), fetched(body));

const description = 'Rebalances stablecoin yield across lending markets every hour.';

describe('classifyMetadataQuality', () => {
  it('is unknown when nothing was fetched or the document is not a JSON object', () => {
    expect(classifyMetadataQuality(null, { ok: false, status: 'timeout', error: 'slow' })).toBe('unknown');
    expect(quality([{ name: 'Yield Pilot' }])).toBe('unknown');
    expect(quality('Yield Pilot')).toBe('unknown');
  });

  it('calls the spec example a placeholder', () => {
    expect(quality(specExample)).toBe('placeholder');
    // Its endpoints are placeholders too, even under a specific name.
    expect(quality({ ...specExample, name: 'Yield Pilot', description: specExample.description })).toBe('placeholder');
  });

  it('calls empty files and generic or letterless names placeholders', () => {
    for (const name of [
      ...[undefined, '', 'Agent #123', 'Agents 18599', 'agent', 'test', 'Test Agent', 'My Agent', 'Agent-E87c4271', '777', '1'],
      ...['Bot', 'AI', 'AI Bot 7', 'Unnamed', 'untitled', 'None', 'N/A', 'TBD', 'placeholder', 'null'],
    ]) {
      expect(quality({ name, description, services: [{ name: 'web', endpoint: 'https://yieldpilot.xyz' }] }), String(name)).toBe('placeholder');
    }
  });

  it('calls a specific name with a working-looking service real', () => {
    expect(quality({ name: 'Yield Pilot', services: [{ name: 'MCP', endpoint: 'https://mcp.yieldpilot.xyz/' }] })).toBe('real');
    expect(quality({ name: 'Yield Pilot', services: [{ name: 'OASF', endpoint: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi' }] })).toBe(
      'real',
    );
  });

  it('counts http, ws and wss endpoints on real hosts or public addresses as services', () => {
    for (const endpoint of ['http://yieldpilot.xyz/', 'ws://yieldpilot.xyz/socket', 'wss://yieldpilot.xyz/socket', 'https://8.8.8.8/mcp', 'https://[2606:4700::1111]/mcp']) {
      expect(quality({ name: 'Yield Pilot', services: [{ name: 'MCP', endpoint }] }), endpoint).toBe('real');
    }
  });

  it('does not count placeholder or unreachable endpoints as services', () => {
    for (const endpoint of [
      ...['https://example.com/agent', 'http://localhost:3000/api', 'https://your-agent-url.com', 'http://192.168.1.5/', 'ipfs://{cid}', 'vitalik.eth', 'mcp-endpoint'],
      ...['https://yourdomain.com/mcp', 'https://domain.com/mcp', 'https://api.test.com/mcp', 'https://intranet/mcp', 'http://[fd00::1]/mcp'],
    ]) {
      expect(quality({ name: 'Yield Pilot', services: [{ name: 'MCP', endpoint }] }), endpoint).toBe('placeholder');
    }
  });

  it('calls a specific name with a meaningful description real, unless the name is a serial number', () => {
    expect(quality({ name: 'Yield Pilot', description })).toBe('real');
    expect(quality({ name: 'NeoMind_8289', description })).toBe('placeholder');
    expect(quality({ name: 'eth2', description })).toBe('placeholder');
    // A trailing word made of hex letters only is not a serial.
    expect(quality({ name: 'Agent Cafe', services: [{ name: 'A2A', endpoint: 'https://agentcafe.ai/a2a' }] })).toBe('real');
    // A serial name with a service is still a reachable agent.
    expect(quality({ name: 'NeoMind_8289', services: [{ name: 'A2A', endpoint: 'https://neomind.ai/a2a' }] })).toBe('real');
  });

  it('does not count filler as a description', () => {
    for (const filler of ['test', '11111111111111111111', 'ASKDAKSJAHDUIQWHEIDHASKJCNZ', 'Yield Pilot', 'ethethethethethethetheth']) {
      expect(quality({ name: 'Yield Pilot', description: filler }), filler).toBe('placeholder');
    }
  });

  it('wants three distinct words of three or more letters in the description besides the name', () => {
    expect(quality({ name: 'Yield Pilot', description: 'Rebalances stablecoin yield hourly.' })).toBe('real');
    expect(quality({ name: 'Yield Pilot', description: 'Rebalances stablecoins.' })).toBe('placeholder');
    expect(quality({ name: 'Yield Pilot', description: 'Yield Pilot rebalances yield on Aave.' })).toBe('placeholder');
  });

  it('takes an ipfs:// service only with a CID-like host', () => {
    expect(quality({ name: 'Yield Pilot', services: [{ name: 'OASF', endpoint: 'ipfs://bafybeigdyrzt5sfp7ud' }] }), '20 characters').toBe('real');
    for (const endpoint of ['ipfs://cid', 'ipfs://QmShortOne', 'ipfs://bafy-not-a-cid-but-long-enough']) {
      expect(quality({ name: 'Yield Pilot', services: [{ name: 'OASF', endpoint }] }), endpoint).toBe('placeholder');
    }
  });
});
