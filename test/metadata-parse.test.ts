// parseRegistration on the spec's example and on the variants found in real registration files.
import { describe, expect, it } from 'vitest';
import { parseRegistration } from '../pipeline/metadata/parse-registration.ts';
import { specExample } from './helpers/registration-examples.ts';

const empty = {
  type: null,
  name: null,
  description: null,
  image: null,
  website: null,
  services: [],
  x402Support: null,
  active: null,
  supportedTrust: [],
  registrations: [],
};

describe('parseRegistration', () => {
  it('reads the spec example', () => {
    expect(parseRegistration(specExample)).toEqual({
      type: specExample.type,
      name: 'myAgentName',
      description: specExample.description,
      image: specExample.image,
      website: null,
      services: [
        { name: 'web', endpoint: 'https://web.agentxyz.com/' },
        { name: 'A2A', endpoint: 'https://agent.example/.well-known/agent-card.json', version: '0.3.0' },
        { name: 'MCP', endpoint: 'https://mcp.agent.eth/', version: '2025-06-18' },
        { name: 'OASF', endpoint: 'ipfs://{cid}', version: '0.8' },
        { name: 'ENS', endpoint: 'vitalik.eth', version: 'v1' },
        { name: 'DID', endpoint: 'did:method:foobar', version: 'v1' },
        { name: 'email', endpoint: 'mail@myagent.com' },
      ],
      x402Support: false,
      active: true,
      supportedTrust: ['reputation', 'crypto-economic', 'tee-attestation'],
      registrations: [{ agentId: '22', agentRegistry: 'eip155:1:0x742' }],
    });
  });

  it('accepts the older spellings: endpoints, x402support, supportedTrusts', () => {
    const parsed = parseRegistration({
      name: 'Old',
      endpoints: [{ name: 'MCP', endpoint: 'https://mcp.old.dev/', version: 1 }],
      x402support: true,
      supportedTrusts: ['reputation'],
    });
    expect(parsed).toMatchObject({
      services: [{ name: 'MCP', endpoint: 'https://mcp.old.dev/', version: '1' }],
      x402Support: true,
      supportedTrust: ['reputation'],
    });
  });

  it('prefers the current spellings when both are present', () => {
    const parsed = parseRegistration({
      services: [{ name: 'web', endpoint: 'https://new.dev' }],
      endpoints: [{ name: 'web', endpoint: 'https://old.dev' }],
      x402Support: false,
      x402support: true,
      supportedTrust: ['reputation'],
      supportedTrusts: ['tee-attestation'],
    });
    expect(parsed).toMatchObject({ services: [{ endpoint: 'https://new.dev' }], x402Support: false, supportedTrust: ['reputation'] });
  });

  it('falls back to the older spellings when the current ones are empty', () => {
    const parsed = parseRegistration({
      services: ['llm'],
      endpoints: [{ name: 'web', endpoint: 'https://old.dev' }],
      supportedTrust: [],
      supportedTrusts: ['reputation'],
    });
    expect(parsed).toMatchObject({ services: [{ name: 'web', endpoint: 'https://old.dev' }], supportedTrust: ['reputation'] });
  });

  it('prefers the name of a service to its type, and its endpoint to its url', () => {
    expect(parseRegistration({ services: [{ name: 'A2A', type: 'agent-card', endpoint: 'https://a.dev/card.json', url: 'https://a.dev' }] }).services).toEqual([
      { name: 'A2A', endpoint: 'https://a.dev/card.json' },
    ]);
  });

  it('reads services keyed by type/url, endpoint maps, and drops bare tags and entries without an endpoint', () => {
    expect(parseRegistration({ services: [{ type: 'website', url: 'https://a8004.xyz' }, 'llm', null, { name: 'MCP' }] }).services).toEqual([
      { name: 'website', endpoint: 'https://a8004.xyz' },
    ]);
    expect(parseRegistration({ endpoints: { telegram: 'https://t.me/EmberAgent_bot', broken: 5 } }).services).toEqual([
      { name: 'telegram', endpoint: 'https://t.me/EmberAgent_bot' },
    ]);
    expect(parseRegistration({ services: [{ serviceEndpoint: 'https://svc.dev' }] }).services).toEqual([{ name: '', endpoint: 'https://svc.dev' }]);
  });

  it('reads registrations in both spellings and drops incomplete ones', () => {
    const parsed = parseRegistration({
      registrations: [
        { agentId: '22811', agentRegistry: 'eip155:1:0x8004' },
        { namespace: 'eip155', chainId: 8453, registryAddress: '0x8004', agentId: 7 },
        { agentId: null, agentRegistry: 'eip155:1:0x8004' },
        { chainId: 1, contract: '0x8004' },
        { agentId: -1, agentRegistry: 'eip155:1:0x8004' },
      ],
    });
    expect(parsed.registrations).toEqual([
      { agentId: '22811', agentRegistry: 'eip155:1:0x8004' },
      { agentId: '7', agentRegistry: 'eip155:8453:0x8004' },
    ]);
  });

  it('takes trust models given as objects by their type', () => {
    expect(parseRegistration({ supportedTrust: ['reputation', { type: 'epistemic-verification', provider: 'x' }, 3] }).supportedTrust).toEqual([
      'reputation',
      'epistemic-verification',
    ]);
  });

  it('takes the website from website, url or external_url', () => {
    expect(parseRegistration({ url: 'https://a.dev' }).website).toBe('https://a.dev');
    expect(parseRegistration({ website: 'https://w.dev', url: 'https://a.dev' }).website).toBe('https://w.dev');
    expect(parseRegistration({ external_url: 'https://e.dev' }).website).toBe('https://e.dev');
  });

  it('turns fields of the wrong type into null or empty, keeping the rest', () => {
    expect(
      parseRegistration({
        name: 42,
        description: '  Real text  ',
        image: { url: 'x' },
        services: 'web',
        x402Support: 'yes',
        active: 1,
        supportedTrust: 'reputation',
        registrations: {},
      }),
    ).toEqual({ ...empty, description: 'Real text' });
    expect(parseRegistration({ name: '   ' }).name).toBeNull();
  });

  it('never throws, whatever JSON value it gets', () => {
    const nested: Record<string, unknown> = {};
    let cursor = nested;
    for (let i = 0; i < 1_000; i++) cursor = cursor.services = {} as Record<string, unknown>;
    for (const value of [null, undefined, 0, 'text', true, [], [1, 2], {}, { services: [[[]]] }, JSON.parse('{"__proto__": {"name": "x"}}'), nested]) {
      expect(parseRegistration(value)).toMatchObject({ services: expect.any(Array) });
    }
    expect(parseRegistration(['not', 'an', 'object'])).toEqual(empty);
  });
});
