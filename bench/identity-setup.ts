// The identity the benches need, made over HTTP as a client makes it: verified account holders'
// credentials (the sandbox verify page) and wallet keys of their own.
import bs58 from 'bs58';

export async function post(baseUrl: string, route: string, key: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl}${route}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** An account holder's credential (opc_…), once verified on the sandbox verify page. */
export async function verifiedCredential(baseUrl: string, key: string, person: { jurisdiction: string; age: string }, i: number): Promise<string> {
  const refused = await post(baseUrl, '/v1/credentials', key, {});
  const verifyUrl = (refused.body as { verify_url?: string }).verify_url;
  if (refused.status !== 409 || !verifyUrl) throw new Error(`POST /v1/credentials before verification answered ${refused.status}: ${JSON.stringify(refused.body)}`);
  const form = new URLSearchParams({ outcome: 'verified', ...person, name: `Bench Holder ${String.fromCharCode(65 + (i % 26))}${i}` });
  await fetch(verifyUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual' });
  const created = await post(baseUrl, '/v1/credentials', key, { ttl_days: 7 });
  const credential = (created.body as { credential?: string }).credential;
  if (created.status !== 200 || !credential) throw new Error(`POST /v1/credentials after verification answered ${created.status}: ${JSON.stringify(created.body)}`);
  return credential;
}

/** A Solana public key of its own for each (fill, i) (capture checks the encoding: base58 of 32 bytes). */
export function solanaKey(fill: number, i: number): string {
  const key = Buffer.alloc(32, fill);
  key.writeUInt32BE(i + 1, 28);
  return bs58.encode(key);
}
