// How much a registration file says about its agent. Most registrations on mainnet are not real
// agents: empty files, `Agent #123`, the spec's own example, or fleets of serial-numbered names
// with stock descriptions and no way to reach them. Scoring must not treat those like an agent
// that names itself and publishes somewhere to talk to it.
//
// Rules, in order:
//   unknown      the file was not fetched, or is not a JSON object: nothing to judge.
//   real         a specific name, and either a working-looking service (an http(s)/ws(s)/ipfs
//                endpoint on a real host), or a meaningful description with a name that is not a
//                serial number (`NeoMind_8289`, `eth2`): a serial name without a single service is
//                what bulk registrations look like.
//   placeholder  everything else, notably: no name, a generic name (`Agent #123`, `test`,
//                `myAgentName`) or one without letters (`777`), the spec example's text,
//                endpoints only on example/placeholder hosts, neither description nor services.
import { isIP } from 'node:net';
import type { FetchRegistrationResult } from './fetch-registration.ts';
import type { ParsedRegistration, RegistrationService } from './parse-registration.ts';
import { isPrivateAddress } from './private-addresses.ts';

export type MetadataQuality = 'real' | 'placeholder' | 'unknown';

// Words that name no one, alone or followed by a serial (`Agent #12`, `Agents 18599`, `test_3`).
const genericName =
  /^(?:my ?agent ?name|(?:my |an? |the )?(?:ai |test |new |demo |example |sample )?(?:agents?|bots?)|ai|test(?:ing)?|demo|example|sample|unnamed|untitled|name|string|null|undefined|none|n\/a|tbd|todo|placeholder)$/i;
// A trailing serial: `_7422`, ` #12`, `-97e8` (hex with at least one digit), or digits glued on (`eth2`).
const serialSuffix = /(?:[\s_#-]+#?(?=[0-9a-f]*\d)[0-9a-f]{1,8}|\d+)$/i;

// Text of the example registration file in the ERC-8004 specification.
const specExampleDescription = /a natural language description of the agent, which may include/i;
// Example and template hosts: RFC 2606 names, the spec example's, `your-agent-url.com`-style blanks.
const placeholderHosts =
  /(?:^|\.)(?:example\.(?:com|org|net)|[a-z0-9-]*\.example|localhost|agentxyz\.com|agent\.eth|your-[a-z0-9-]+\.[a-z]+|yourdomain\.[a-z]+|domain\.com|test\.com)$/i;

export function classifyMetadataQuality(parsed: ParsedRegistration | null, fetched: FetchRegistrationResult): MetadataQuality {
  if (!fetched.ok || !isJsonObject(fetched.body) || parsed === null) return 'unknown';
  const name = parsed.name ?? '';
  if (!isSpecificName(name)) return 'placeholder';
  if (parsed.services.some(isWorkingService)) return 'real';
  return hasMeaningfulDescription(parsed) && !serialSuffix.test(name) ? 'real' : 'placeholder';
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSpecificName(name: string): boolean {
  if (!/\p{L}/u.test(name)) return false;
  return !genericName.test(name.trim()) && !genericName.test(name.trim().replace(serialSuffix, '').trim());
}

function hasMeaningfulDescription(parsed: ParsedRegistration): boolean {
  const description = parsed.description ?? '';
  if (specExampleDescription.test(description)) return false;
  // At least three distinct words of three or more letters besides the name's own: rules out
  // `test`, `1111…`, keyboard mashes and a repeated name.
  const wordsOf = (text: string) => text.toLowerCase().match(/\p{L}{3,}/gu) ?? [];
  const words = new Set(wordsOf(description));
  for (const word of wordsOf(parsed.name ?? '')) words.delete(word);
  return words.size >= 3;
}

function isWorkingService(service: RegistrationService): boolean {
  let url: URL;
  try {
    url = new URL(service.endpoint);
  } catch {
    return false;
  }
  if (!['http:', 'https:', 'ws:', 'wss:', 'ipfs:'].includes(url.protocol)) return false;
  // The spec example's OASF endpoint is literally `ipfs://{cid}`.
  if (url.protocol === 'ipfs:') return /^[A-Za-z0-9]{20,}$/.test(url.hostname);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return !isPrivateAddress(host);
  return host.includes('.') && !placeholderHosts.test(host);
}
