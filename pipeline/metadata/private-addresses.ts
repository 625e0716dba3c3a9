// Addresses a fetch of a URI taken from the chain must never reach: anyone can register an agent
// whose URI points at our own network (cloud metadata services, admin listeners, databases).
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated): tunnels, as 2002::/16 below
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d)
  // (IPv4-mapped ::ffff:a.b.c.d is matched by the IPv4 rules above: BlockList maps it.)
  ['::ffff:0:0:0', 96], // IPv4-translated (::ffff:0:a.b.c.d)
  ['64:ff9b::', 96], // NAT64: reaches the embedded IPv4 address, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: tunnels to an embedded IPv4 address
  ['2002::', 16], // 6to4: tunnels to an embedded IPv4 address
  ['fec0::', 10], // deprecated site-local
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** True for loopback, private, link-local and other non-public addresses (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
