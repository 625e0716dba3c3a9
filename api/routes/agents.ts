// GET /v1/agents (spec 4.10, 2.9): registered ERC-8004 agents of the newest scoring state, with
// filters, in the stable order score desc, chain, agent_id. Pages by `offset` or by `cursor`
// (keyset: the opaque base64url of the last item's (score, chain, agent_id), from next_cursor).
import type Router from '@koa/router';
import { z } from 'zod';
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { ApiError } from '../errors.ts';
import type { AuthState } from '../middleware/api-key.ts';
import { chainName, grades, parseQuery, q, single } from './query.ts';

const notACursor = 'not a cursor from next_cursor';

export const agentsQuerySchema = z.object({
  chain: chainName(single('chain')).optional(),
  grade: q.oneOf('grade', grades),
  min_score: q.number('min_score', 0, 100),
  metadata_quality: q.oneOf('metadata_quality', ['real', 'placeholder', 'unknown']),
  entity_type: q.oneOf('entity_type', ['agent', 'service', 'hybrid', 'wallet', 'unknown']),
  has_endpoint: q.boolean('has_endpoint'),
  has_candidate_payment_activity: q.boolean('has_candidate_payment_activity'),
  has_verified_payment_activity: q.boolean('has_verified_payment_activity'),
  limit: q.int('limit', 1, 100, 25),
  // No fallback here: giving both offset and cursor is refused, so absent must stay absent (0 then).
  offset: q.int('offset', 0, 1_000_000).meta({ description: 'default 0; give offset or cursor, not both' }),
  cursor: single('cursor').max(512, notACursor).optional().meta({ description: 'next_cursor of the previous page' }),
});

interface Position {
  score: number;
  chain: string;
  agentId: string;
}

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.score, p.chain, p.agentId])).toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  const invalid = new ApiError('bad_request', `cursor: ${notACursor}`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  const parsed = z.tuple([z.number().int().min(0).max(100), chainName(z.string()), z.string().regex(/^\d{1,40}$/)]).safeParse(value);
  if (!parsed.success) throw invalid;
  const [score, chain, agentId] = parsed.data;
  return { score, chain, agentId };
}

export function agentsRoutes(router: Router<AuthState>, deps: { store: Store }): void {
  router.get('/v1/agents', async (ctx) => {
    const query = parseQuery(agentsQuerySchema, ctx.query);
    if (query.cursor !== undefined && query.offset !== undefined) {
      throw new ApiError('bad_request', 'cursor and offset: give one or the other, not both');
    }
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await deps.store.read(sqlFile('serve/agents'), [
      query.chain ?? null,
      query.grade ?? null,
      query.min_score ?? null,
      query.metadata_quality ?? null,
      query.entity_type ?? null,
      query.has_endpoint ?? null,
      query.has_candidate_payment_activity ?? null,
      query.has_verified_payment_activity ?? null,
      after?.score ?? null,
      after?.chain ?? null,
      after?.agentId ?? null,
      query.limit + 1,
      after ? 0 : (query.offset ?? 0),
    ]);
    const count = Number(rows[0]?.total ?? 0);
    const found = rows.filter((r) => r.chain !== null);
    const items = found.slice(0, query.limit).map(agentItem);
    const last = found.length > query.limit ? items[items.length - 1]! : null;
    ctx.body = {
      items,
      next_cursor: last ? encodeCursor({ score: last.score, chain: last.chain, agentId: last.agent_id }) : null,
      count,
      version: 'v1',
    };
  });
}

function agentItem(r: Row) {
  return {
    chain: String(r.chain),
    registry: String(r.registry),
    agent_id: String(r.agent_id),
    name: (r.name as string | null) ?? null,
    description: (r.description as string | null) ?? null,
    owner: String(r.owner),
    agent_wallet: (r.agent_wallet as string | null) ?? null,
    payment_address: String(r.payment_address),
    agent_uri: (r.agent_uri as string | null) || null,
    metadata_quality: String(r.metadata_quality),
    has_endpoint: Boolean(r.has_endpoint),
    github_url: (r.github_url as string | null) ?? null,
    registered_at: (r.registered_at as string | null) ?? null,
    agents_sharing_owner: Number(r.agents_sharing_owner),
    score: Number(r.score),
    grade: String(r.grade),
    confidence: Number(r.confidence),
    entity_type: String(r.entity_type),
    has_candidate_payment_activity: Boolean(r.has_candidate_payment_activity),
    has_verified_payment_activity: Boolean(r.has_verified_payment_activity),
  };
}
