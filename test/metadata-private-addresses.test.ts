// Hosts a registration-file URL may resolve to: only public addresses, in every spelling.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../pipeline/metadata/private-addresses.ts';
import { ipfsGatewayUrl } from '../pipeline/metadata/fetch-registration.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', '::ffff:127.0.0.1', '::127.0.0.1', '::ffff:0:10.0.0.1',
    '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '2002:a9fe:a9fe::1', '2001:0:4136:e378::1', 'fec0::1', 'fd00::1', 'fe80::1', '100::1', 'not-an-ip',
  ])('%s is refused', (address) => expect(isPrivateAddress(address)).toBe(true));

  // Both ends of every IPv4 range, and one address in each other IPv6 range.
  it.each([
    '0.0.0.0', '0.255.255.255', '10.255.255.255', '100.64.0.0', '100.127.255.255', '127.255.255.255', '169.254.0.0', '169.254.255.255',
    '172.16.0.0', '172.31.255.255', '192.0.0.0', '192.0.0.255', '192.0.2.0', '192.0.2.255', '192.88.99.0', '192.88.99.255', '192.168.0.0', '192.168.255.255',
    '198.18.0.0', '198.19.255.255', '198.51.100.0', '198.51.100.255', '203.0.113.0', '203.0.113.255', '224.0.0.0', '239.255.255.255',
    '240.0.0.0', '255.255.255.255', '::', '::ffff:172.16.0.1', '2002:ffff::1', '64:ff9b:1:ffff::1', 'fdff::1', 'fe80::1', 'febf::1', 'ff02::1', '2001:db8::1',
  ])('%s is refused', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['8.8.8.8', '::ffff:8.8.8.8', '2606:4700::1111', '1.1.1.1'])('%s is public', (address) => expect(isPrivateAddress(address)).toBe(false));

  // Just outside the IPv4 ranges.
  it.each([
    '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0', '169.253.255.255', '169.255.0.0',
    '172.15.255.255', '172.32.0.0', '192.0.1.0', '192.0.3.0', '192.88.98.255', '192.88.100.0', '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0',
    '198.51.99.255', '198.51.101.0', '203.0.112.255', '203.0.114.0', '223.255.255.255', '2001:db9::1',
  ])('%s is public', (address) => expect(isPrivateAddress(address)).toBe(false));
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
