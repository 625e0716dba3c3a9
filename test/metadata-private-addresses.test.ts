// Hosts a registration-file URL may resolve to: only public addresses, in every spelling.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../pipeline/metadata/private-addresses.ts';
import { ipfsGatewayUrl } from '../pipeline/metadata/fetch-registration.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', '::ffff:127.0.0.1', '::127.0.0.1', '::ffff:0:10.0.0.1',
    '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '2002:a9fe:a9fe::1', '2001:0:4136:e378::1', 'fec0::1', 'fd00::1', 'fe80::1', '100::1', 'not-an-ip',
  ])('%s is refused', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['8.8.8.8', '::ffff:8.8.8.8', '2606:4700::1111', '1.1.1.1'])('%s is public', (address) => expect(isPrivateAddress(address)).toBe(false));
});

describe('ipfsGatewayUrl', () => {
  it('refuses dot segments that would leave /ipfs/ on the gateway', () => {
    expect(ipfsGatewayUrl('ipfs://QmAbc/../../admin', 'https://gw.example/ipfs/')).toBeNull();
    expect(ipfsGatewayUrl('ipfs://QmAbc/%2E%2E/admin', 'https://gw.example/ipfs/')).toBeNull();
    // URL parsing reads a backslash as "/" and drops tabs: dot segments spelled so climb out too.
    for (const uri of ['ipfs://QmAbc/..\\..\\admin', 'ipfs://QmAbc/%2e%2e\\admin', 'ipfs://QmAbc/.\t./.\t./admin', 'ipfs://QmAbc/../QmAbcd']) {
      expect(ipfsGatewayUrl(uri, 'https://gw.example/ipfs/'), JSON.stringify(uri)).toBeNull();
    }
    expect(ipfsGatewayUrl('ipfs://QmAbc/agent.json', 'https://gw.example/ipfs/')).toBe('https://gw.example/ipfs/QmAbc/agent.json');
  });
});
