import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseRegistration } from './pipeline/metadata/parse-registration.ts';
import { classifyMetadataQuality } from './pipeline/metadata/quality.ts';
const rl = createInterface({ input: createReadStream('/work/shared/data/erc8004/agents-catalog-2026-03-18.jsonl') });
const counts: Record<string, number> = {}; const samples: Record<string, string[]> = { real: [], placeholder: [] };
const realNames = new Map<string, number>(); const realDesc = new Map<string, number>();
let i = 0;
for await (const line of rl) {
  const o = JSON.parse(line);
  const fetched = 'rawMetadata' in o ? { ok: true as const, kind: 'json' as const, body: o.rawMetadata, sha256: '' } : { ok: false as const, status: 'invalid_json' as const, error: o.error };
  const parsed = fetched.ok ? parseRegistration(o.rawMetadata) : null;
  const q = classifyMetadataQuality(parsed, fetched);
  counts[q] = (counts[q] ?? 0) + 1;
  const emptyObj = fetched.ok && Object.keys(o.rawMetadata).length === 0;
  if (emptyObj) counts.emptyObj = (counts.emptyObj ?? 0) + 1;
  if (q === 'real') { realNames.set(parsed!.name!, (realNames.get(parsed!.name!) ?? 0) + 1); const d=(parsed!.description??'').slice(0,80); realDesc.set(d, (realDesc.get(d)??0)+1); }
  if (q !== 'unknown' && !emptyObj && (i++ % 97 === 0)) samples[q]!.push(`${o.id} ${JSON.stringify({ n: parsed!.name, d: parsed!.description?.slice(0, 100), s: parsed!.services.map(s => s.endpoint).slice(0,3) })}`);
}
console.log(counts);
const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([k, v]) => `${v}\t${JSON.stringify(k)}`).join('\n');
console.log('== real names'); console.log(top(realNames)); console.log('== real desc'); console.log(top(realDesc));
for (const k of ['real', 'placeholder']) { console.log('==', k); console.log(samples[k]!.slice(0, 60).join('\n')); }
