// The buyer agent's credential store: a JSON file, private to its user, holding per identity
// service the operator token, the refresh token and their expiries (spec 2.1, 2.5:
// `persist_in_credential_store`). Never the poll secret (it lives as long as one poll loop, in
// memory) and never anything of the agent_memory block. The file is created 0600 in a 0700 folder,
// rewritten atomically (a 0600 temp file in the same folder, fsynced, renamed over it), and refused
// when it is open to the group or others: a bearer token readable by other users is a leaked token.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isPlainObject } from '../json.ts';

/** One identity service's login as the store keeps it. */
export interface StoredCredential {
  /** The identity service's base URL (where verify_url and poll_url live), e.g. `https://id.example`. */
  service: string;
  operatorToken: string;
  /** ISO-8601; null when the service did not say. */
  operatorTokenExpiresAt: string | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: string | null;
  updatedAt: string;
}

export interface CredentialStore {
  readonly path: string;
  /** Every stored login, newest first. */
  list(): Promise<StoredCredential[]>;
  get(service: string): Promise<StoredCredential | null>;
  /** The login to present to a merchant: the one of the service it used before, else the newest. */
  forMerchant(merchantOrigin: string): Promise<StoredCredential | null>;
  /** Stores (replaces) the login of `credential.service`; remembers that `merchantOrigin` uses it. */
  put(credential: StoredCredential, merchantOrigin?: string): Promise<void>;
  /** Removes one service's login, or every login when no service is given; how many were removed. */
  remove(service?: string): Promise<number>;
}

/** The store cannot be used as it is: the message says what to do. */
export class CredentialStoreError extends Error {
  override name = 'CredentialStoreError';
}

interface FileRecord {
  operator_token: string;
  operator_token_expires_at: string | null;
  refresh_token: string | null;
  refresh_token_expires_at: string | null;
  updated_at: string;
}

interface FileShape {
  version: 1;
  services: Record<string, FileRecord>;
  /** merchant origin → service URL: which login a merchant was last served with (no secret). */
  merchants: Record<string, string>;
}

export const credentialStoreVersion = 1;

/** The service base URL normalised as the store keys it: no trailing slash, lowercase scheme and host. */
export function serviceKey(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

export function openCredentialStore(file: string): CredentialStore {
  const absolute = path.resolve(file);
  // Writes of this process are serialised, so two updates cannot read the same old file.
  let queue: Promise<unknown> = Promise.resolve();
  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const list = async (): Promise<StoredCredential[]> => {
    const data = await readStore(absolute);
    return Object.entries(data.services)
      .map(([service, r]) => toCredential(service, r))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  };

  return {
    path: absolute,
    list,
    async get(service) {
      const data = await readStore(absolute);
      const key = serviceKey(service);
      const record = data.services[key];
      return record ? toCredential(key, record) : null;
    },
    async forMerchant(merchantOrigin) {
      const data = await readStore(absolute);
      const known = data.merchants[merchantOrigin];
      if (known !== undefined && data.services[known]) return toCredential(known, data.services[known]!);
      return (await list())[0] ?? null;
    },
    put(credential, merchantOrigin) {
      return serialised(async () => {
        const data = await readStore(absolute);
        const key = serviceKey(credential.service);
        data.services[key] = {
          operator_token: credential.operatorToken,
          operator_token_expires_at: credential.operatorTokenExpiresAt,
          refresh_token: credential.refreshToken,
          refresh_token_expires_at: credential.refreshTokenExpiresAt,
          updated_at: credential.updatedAt,
        };
        if (merchantOrigin !== undefined) data.merchants[merchantOrigin] = key;
        await writeStore(absolute, data);
      });
    },
    remove(service) {
      return serialised(async () => {
        const data = await readStore(absolute);
        const keys = service === undefined ? Object.keys(data.services) : [serviceKey(service)].filter((k) => k in data.services);
        if (keys.length === 0) return 0;
        for (const key of keys) delete data.services[key];
        for (const [merchant, key] of Object.entries(data.merchants)) if (!(key in data.services)) delete data.merchants[merchant];
        await writeStore(absolute, data);
        return keys.length;
      });
    },
  };
}

function toCredential(service: string, r: FileRecord): StoredCredential {
  return {
    service,
    operatorToken: r.operator_token,
    operatorTokenExpiresAt: r.operator_token_expires_at,
    refreshToken: r.refresh_token,
    refreshTokenExpiresAt: r.refresh_token_expires_at,
    updatedAt: r.updated_at,
  };
}

/** Group and other permission bits: any of them set and the file is refused. */
const openToOthers = 0o077;

async function readStore(file: string): Promise<FileShape> {
  let mode: number;
  try {
    const s = await stat(file);
    if (!s.isFile()) throw new CredentialStoreError(`credential store ${file} is not a regular file`);
    mode = s.mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, services: {}, merchants: {} };
    throw err;
  }
  if (process.platform !== 'win32' && (mode & openToOthers) !== 0) {
    throw new CredentialStoreError(
      `credential store ${file} is open to other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); ` +
        `it holds bearer tokens: run "chmod 600 ${file}" (and consider the tokens in it leaked: "reputation agent token clear")`,
    );
  }
  const text = await readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CredentialStoreError(`credential store ${file} is not valid JSON; move it away to start a new one`);
  }
  return validate(parsed, file);
}

/** The file is checked where it enters: a record with a wrong field is refused, not half-used. */
function validate(value: unknown, file: string): FileShape {
  const bad = (why: string) => new CredentialStoreError(`credential store ${file} is not a credential store of this client (${why}); move it away to start a new one`);
  if (!isPlainObject(value)) throw bad('not a JSON object');
  if (value.version !== credentialStoreVersion) throw bad(`version ${JSON.stringify(value.version)}, expected ${credentialStoreVersion}`);
  const services = value.services ?? {};
  const merchants = value.merchants ?? {};
  if (!isPlainObject(services)) throw bad('services is not an object');
  if (!isPlainObject(merchants)) throw bad('merchants is not an object');
  const out: FileShape = { version: 1, services: {}, merchants: {} };
  for (const [service, r] of Object.entries(services)) {
    if (!isPlainObject(r) || typeof r.operator_token !== 'string' || typeof r.updated_at !== 'string') throw bad(`the record of ${service}`);
    for (const field of ['operator_token_expires_at', 'refresh_token', 'refresh_token_expires_at'] as const) {
      if (r[field] !== null && r[field] !== undefined && typeof r[field] !== 'string') throw bad(`${field} of ${service}`);
    }
    out.services[service] = {
      operator_token: r.operator_token,
      operator_token_expires_at: (r.operator_token_expires_at as string | null | undefined) ?? null,
      refresh_token: (r.refresh_token as string | null | undefined) ?? null,
      refresh_token_expires_at: (r.refresh_token_expires_at as string | null | undefined) ?? null,
      updated_at: r.updated_at,
    };
  }
  for (const [merchant, service] of Object.entries(merchants)) if (typeof service === 'string') out.merchants[merchant] = service;
  return out;
}


async function writeStore(file: string, data: FileShape): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': a fresh file of ours, never one someone planted under that name.
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  // The rename keeps the temp file's 0600; said again in case the file system ignored open's mode.
  await chmod(file, 0o600);
}
