import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseRegistration } from './pipeline/metadata/parse-registration.ts';
import { classifyMetadataQuality } from './pipeline/metadata/quality.ts';
const rl = createInterface({ input: createReadStream('/work/shared/data/erc8004/agents-catalog-2026-03-18.jsonl') });
let n = 0;
for await (const line of rl) {
  const o = JSON.parse(line); if (!('rawMetadata' in o)) continue;
  const p = parseRegistration(o.rawMetadata);
  const q = classifyMetadataQuality(p, { ok: true, kind: 'json', body: o.rawMetadata, sha256: '' });
  const words = new Set((p.description ?? '').toLowerCase().match(/\p{L}{3,}/gu) ?? []); words.delete((p.name ?? '').toLowerCase());
  if (q === 'placeholder' && words.size >= 3 && n++ < 40) console.log(o.id, JSON.stringify({ n: p.name, d: p.description?.slice(0, 120), s: p.services.length }));
}
