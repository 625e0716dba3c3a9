// State-changing commands of the CLI. Each runs against a Store, either in the CLI
// process (no server running) or inside `reputation serve` through its admin endpoint, so the
// output is the same either way.
import { OperationInputError } from './operation-input-error.ts';
import { z } from 'zod';
import { createAccount, renameAccount, UnknownAccountIdError, type ApiKeyIndex } from '../accounts.ts';
import { flaggedSessions, reviewFlagged, SessionStateError, UnknownSessionError } from '../../identity/sessions.ts';
import { planNames } from '../plans.ts';
import { AllowlistEntryError, AllowlistRefusedError, changeIpAllowlist } from '../security/ip-allowlist.ts';
import { JobInputError } from '../../jobs/handlers.ts';
import path from 'node:path';
import { importFile } from '../../pipeline/import/import-file.ts';
import { ImportFileError } from '../../pipeline/import/errors.ts';
import { importKinds, type ImportKind } from '../../pipeline/import/kinds.ts';
import { importFormats, type ImportFormat } from '../../pipeline/import/format.ts';
import { JobOperationError, jobOperations, type JobsContext } from './job-operations.ts';
import type { UsageMeter } from '../usage/meter.ts';
import type { IdentityService } from '../../identity/service.ts';
import { UnknownAccountError, usageReport } from '../usage/report.ts';
import { activeOverrides, changeAccountLimits, LimitsRefusedError, type LimitOverrides } from '../usage/limits.ts';
import type { AuditTrail } from '../../identity/assess/audit.ts';
import { recentAssessments, type AssessmentFilter } from '../../identity/assess/assessments.ts';
import { maxListedAssessments } from '../../identity/assess/listing.ts';
import { serviceStatus } from './status.ts';

export interface OperationContext extends JobsContext {
  /** Present inside the server, so a new key works immediately. */
  keys?: ApiKeyIndex;
  /** Present inside the server: its unflushed usage counts are flushed before usage.show reads. */
  usage?: UsageMeter;
  /** Present inside the server: a review changes its memory of operators too. */
  identity?: IdentityService;
  /** Present inside the server: assess decisions not written yet are flushed before a listing. */
  audit?: AuditTrail;
}


export const operations = {
  'accounts.create': {
    input: z.object({ plan: z.enum(planNames), name: z.string().min(1).max(200).optional() }),
    run: (ctx: OperationContext, args: { plan: (typeof planNames)[number]; name?: string }) =>
      createAccount(ctx.store, args, ctx.keys),
  },
  'accounts.rename': {
    input: z.object({ accountId: z.string().min(1), name: z.string().trim().min(1).max(200) }),
    run: async (ctx: OperationContext, args: { accountId: string; name: string }) => {
      try {
        return await renameAccount(ctx.store, args.accountId, args.name);
      } catch (err) {
        if (err instanceof UnknownAccountIdError) throw new OperationInputError(err.message);
        throw err;
      }
    },
  },
  // What needs a person: freshness, the sanctions list, reviews, failed jobs (api/admin/status.ts).
  status: {
    input: z.object({}),
    run: (ctx: OperationContext) => serviceStatus(ctx.store, ctx.config, new Date(), ctx.identity !== undefined),
  },
  // Flagged verification sessions waiting for a person's review, and the review itself.
  'operators.flagged': {
    input: z.object({}),
    run: (ctx: OperationContext) => flaggedSessions(ctx.store),
  },
  'operators.review': {
    input: z.object({ sessionId: z.string().min(1), decision: z.enum(['cleared', 'confirmed']) }),
    run: async (ctx: OperationContext, args: { sessionId: string; decision: 'cleared' | 'confirmed' }) => {
      try {
        // Inside the server its identity half reviews (its clock, its memory); without one, the store alone.
        const session = ctx.identity ? await ctx.identity.review(args.sessionId, args.decision) : await reviewFlagged(ctx.store, null, args.sessionId, args.decision, new Date());
        return { session_id: session.id, status: session.stored, review_decision: session.reviewDecision, operator_id: session.operatorId };
      } catch (err) {
        if (err instanceof SessionStateError || err instanceof UnknownSessionError) throw new OperationInputError(err.message);
        throw err;
      }
    },
  },
  // The newest recorded assess decisions (the audit trail), optionally of one account and decision.
  'assessments.list': {
    input: z.object({
      limit: z.number().int().min(1).max(maxListedAssessments).default(20),
      accountId: z.string().min(1).max(200).optional(),
      decision: z.enum(['allow', 'deny']).optional(),
    }),
    run: async (ctx: OperationContext, args: AssessmentFilter) => {
      // The decisions of the last moments too; a failed flush was logged, and the stored ones still list.
      await ctx.audit?.flush().catch(() => undefined);
      return recentAssessments(ctx.store, args);
    },
  },
  // Sets (cidrs non-empty), clears (cidrs: []) or shows (no cidrs) the IP allowlist of one key or
  // of every active key of an account; setting one needs an enterprise account.
  'accounts.allowlist': {
    input: z
      .object({ keyId: z.string().min(1).optional(), accountId: z.string().min(1).optional(), cidrs: z.array(z.string()).optional() })
      .refine((a) => (a.keyId === undefined) !== (a.accountId === undefined), 'give exactly one of keyId and accountId'),
    run: async (ctx: OperationContext, args: { keyId?: string; accountId?: string; cidrs?: string[] }) => {
      try {
        const changes = await changeIpAllowlist(ctx.store, args, args.cidrs);
        if (args.cidrs !== undefined) for (const change of changes) ctx.keys?.setIpAllowlist(change.key_id, change.allowlist);
        return changes;
      } catch (err) {
        if (err instanceof AllowlistEntryError || err instanceof AllowlistRefusedError) throw new OperationInputError(err.message);
        throw err;
      }
    },
  },
  // Sets (a number), resets to the plan's value (null) or, with nothing given, shows an enterprise
  // account's own rate limits, included calls and cache TTL.
  'accounts.limits': {
    input: z.object({
      accountId: z.string().min(1),
      ratePerMinute: z.number().nullable().optional(),
      ratePerSecond: z.number().nullable().optional(),
      includedCalls: z.number().nullable().optional(),
      cacheTtlSeconds: z.number().nullable().optional(),
    }),
    run: async (ctx: OperationContext, { accountId, ...change }: { accountId: string } & Partial<LimitOverrides>) => {
      try {
        const report = await changeAccountLimits(ctx.store, accountId, change);
        ctx.keys?.setLimitOverrides(accountId, activeOverrides(report.overrides));
        return report;
      } catch (err) {
        if (err instanceof LimitsRefusedError) throw new OperationInputError(err.message);
        throw err;
      }
    },
  },
  'usage.show': {
    input: z.object({ account: z.string().min(1).max(200) }),
    run: async (ctx: OperationContext, args: { account: string }) => {
      await ctx.usage?.flush();
      try {
        return await usageReport(ctx.store, args.account, ctx.usage?.now() ?? new Date());
      } catch (err) {
        if (err instanceof UnknownAccountError) throw new OperationInputError(err.message);
        throw err;
      }
    },
  },
  ...jobOperations,
  import: {
    input: z.object({
      file: z.string().refine((f) => path.isAbsolute(f), 'give an absolute path'),
      kind: z.enum(importKinds),
      onBadRows: z.enum(['skip', 'refuse']),
      format: z.enum(importFormats).optional(),
    }),
    run: async (ctx: OperationContext, args: { file: string; kind: ImportKind; onBadRows: 'skip' | 'refuse'; format?: ImportFormat }) => {
      try {
        return await importFile(ctx, { ...args, onProgress: (p) => ctx.onProgress?.({ done: p.rowsRead, total: p.rowsRead, unit: 'rows' }) });
      } catch (err) {
        if (err instanceof ImportFileError) throw new OperationInputError(err.message);
        throw err;
      }
    },
  },
} as const;

export type OperationName = keyof typeof operations;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** Validates `args` and runs the operation; any fault of the input throws OperationInputError. */
export async function runOperationIn(ctx: OperationContext, name: OperationName, args: unknown): Promise<unknown> {
  const op = operations[name];
  const parsed = op.input.safeParse(args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OperationInputError(`${issue.path.join('.') || 'input'}: ${issue.message}`);
  }
  try {
    return await (op.run as (c: OperationContext, a: unknown) => Promise<unknown>)(ctx, parsed.data);
  } catch (err) {
    if (err instanceof JobInputError || err instanceof JobOperationError) throw new OperationInputError(err.message);
    throw err;
  }
}
