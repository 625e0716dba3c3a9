import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseRegistration } from './pipeline/metadata/parse-registration.ts';
import { classifyMetadataQuality } from './pipeline/metadata/quality.ts';
const rl = createInterface({ input: createReadStream('/work/shared/data/erc8004/agents-catalog-2026-03-18.jsonl') });
let idPat = 0, withSvc = 0, realNoSvc = 0; const phWithSvc: string[] = []; const realSvcOdd: string[]=[];
for await (const line of rl) {
  const o = JSON.parse(line); if (!('rawMetadata' in o)) continue;
  const p = parseRegistration(o.rawMetadata);
  const q = classifyMetadataQuality(p, { ok: true, kind: 'json', body: o.rawMetadata, sha256: '' });
  if (q === 'real') { if (/ID: \d{13}-/.test(p.description ?? '')) idPat++; if (p.services.length) withSvc++; else realNoSvc++; }
  if (q === 'placeholder' && p.services.length && phWithSvc.length < 400) phWithSvc.push(`${o.id} ${JSON.stringify({ n: p.name, d: p.description?.slice(0, 60), s: p.services.map(s => s.endpoint).slice(0, 3) })}`);
}
console.log({ idPat, withSvc, realNoSvc }); 
const uniq = new Map<string,string>(); for (const l of phWithSvc) { const k = l.replace(/^\d+ /,'').replace(/[0-9a-f-]{36}/g,'U'); if(!uniq.has(k)) uniq.set(k,l); }
console.log([...uniq.values()].slice(0,80).join('\n'));
