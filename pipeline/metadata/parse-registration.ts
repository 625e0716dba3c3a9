// Normalises an ERC-8004 registration file as published. Files in the wild drift from the spec
// (older `endpoints`, `x402support`, `supportedTrusts`, services keyed by `type`/`url`, bare tags
// in service lists, endpoint maps), so every field is parsed on its own and a field of the wrong
// type becomes null or empty instead of failing the file. parseRegistration never throws.
import { z } from 'zod';

export interface RegistrationService {
  name: string;
  endpoint: string;
  version?: string;
}

export interface RegistrationEntry {
  /** Decimal string: agent ids are uint256. */
  agentId: string;
  agentRegistry: string;
}

export interface ParsedRegistration {
  type: string | null;
  name: string | null;
  description: string | null;
  image: string | null;
  /** The agent's home page from a top-level `website`, `url` or ERC-721 `external_url`. */
  website: string | null;
  services: RegistrationService[];
  x402Support: boolean | null;
  active: boolean | null;
  supportedTrust: string[];
  registrations: RegistrationEntry[];
}

const text = z.string().trim().min(1).nullable().catch(null);
const flag = z.boolean().nullable().catch(null);

const serviceObject = z.object({
  name: text,
  type: text,
  endpoint: text,
  url: text,
  serviceEndpoint: text,
  version: z.union([z.string().trim().min(1), z.number()]).transform(String).nullable().catch(null),
});

// A list entry that is not an object (bare tags such as "llm") becomes null and is dropped.
const serviceList = z.array(serviceObject.nullable().catch(null));
// The older map form: {"telegram": "https://t.me/..."}.
const serviceMap = z.record(z.string(), text);
const services = z.union([serviceList, serviceMap]).nullable().catch(null);

// Trust models are strings; one real file gives objects with a `type`, which names the model.
const trustModel = z.union([z.string().trim().min(1), z.object({ type: z.string().trim().min(1) }).transform((t) => t.type)]);
const trustList = z.array(trustModel.nullable().catch(null)).nullable().catch(null);

const agentId = z.union([z.number().int().nonnegative(), z.string().trim().regex(/^\d+$/)]).transform(String);
const registrationEntry = z.union([
  z.object({ agentId, agentRegistry: z.string().trim().min(1) }),
  // A variant spelling the registry out: {namespace, chainId, registryAddress, agentId}.
  z
    .object({ agentId, namespace: z.string().min(1), chainId: z.union([z.number().int(), z.string().min(1)]), registryAddress: z.string().min(1) })
    .transform((r) => ({ agentId: r.agentId, agentRegistry: `${r.namespace}:${r.chainId}:${r.registryAddress}` })),
]);

const registrationFile = z.object({
  type: text,
  name: text,
  description: text,
  image: text,
  website: text,
  url: text,
  external_url: text,
  services,
  endpoints: services,
  x402Support: flag,
  x402support: flag,
  active: flag,
  supportedTrust: trustList,
  supportedTrusts: trustList,
  registrations: z.array(registrationEntry.nullable().catch(null)).catch([]),
});

type RawServices = z.output<typeof services>;

function normaliseServices(raw: RawServices): RegistrationService[] {
  if (raw === null) return [];
  if (!Array.isArray(raw)) {
    return Object.entries(raw).flatMap(([name, endpoint]) => (endpoint === null ? [] : [{ name, endpoint }]));
  }
  return raw.flatMap((entry) => {
    const endpoint = entry?.endpoint ?? entry?.url ?? entry?.serviceEndpoint;
    if (!entry || !endpoint) return [];
    const service: RegistrationService = { name: entry.name ?? entry.type ?? '', endpoint };
    if (entry.version !== null) service.version = entry.version;
    return [service];
  });
}

const nonNull = <T>(value: T | null): value is T => value !== null;

export function parseRegistration(json: unknown): ParsedRegistration {
  const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
  const parsed = registrationFile.safeParse(isObject ? json : {});
  // Every field catches its own errors, so only something exotic (a getter that throws) lands here.
  const raw = parsed.success ? parsed.data : registrationFile.parse({});
  const fromServices = normaliseServices(raw.services);
  return {
    type: raw.type,
    name: raw.name,
    description: raw.description,
    image: raw.image,
    website: raw.website ?? raw.url ?? raw.external_url,
    services: fromServices.length > 0 ? fromServices : normaliseServices(raw.endpoints),
    x402Support: raw.x402Support ?? raw.x402support,
    active: raw.active,
    supportedTrust: (raw.supportedTrust?.length ? raw.supportedTrust : (raw.supportedTrusts ?? [])).filter(nonNull),
    registrations: raw.registrations.filter(nonNull),
  };
}
