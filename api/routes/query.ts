// Query-string validation shared by the browse, stats and legacy routes: a zod schema over
// ctx.query; the first problem answers 400 bad_request naming the parameter (spec 7.1).
import { z } from 'zod';
import { ApiError } from '../errors.ts';

export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.output<T> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = issue.path.map(String).join('.');
  const message = name && !issue.message.startsWith(name) ? `${name}: ${issue.message}` : issue.message;
  throw new ApiError('bad_request', message);
}

/** A query parameter given once (a repeated one arrives as an array and is refused). */
export const single = (name: string) => z.string({ message: `${name} must be given once` });

/**
 * One of `values`, given once. The enum stays the schema (the OpenAPI document lists its values);
 * only its message tells a repeated parameter (an array) from a wrong value.
 */
export const oneOf = <const V extends readonly [string, ...string[]]>(name: string, values: V, message = `${name} must be one of ${values.join(', ')}`) =>
  z.enum(values, { error: (issue) => (Array.isArray(issue.input) ? `${name} must be given once` : message) });

/**
 * What each helper's value means once parsed, for the OpenAPI document (api/openapi/document.ts):
 * a query string is text, so a validator's input schema only says "a string of digits"; the
 * document shows this instead (type, bounds, default), set from the same arguments as the validator.
 */
export interface QueryValueDoc {
  type: 'integer' | 'number' | 'boolean';
  minimum?: number;
  maximum?: number;
  default?: number;
}
export const queryValueDocs = z.registry<QueryValueDoc>();

function documented<T extends z.ZodType>(schema: T, value: QueryValueDoc): T {
  queryValueDocs.add(schema, value);
  return schema;
}

export const q = {
  /** A whole number in [min, max]; `fallback` when absent (undefined without one). */
  int: <F extends number | undefined = undefined>(name: string, min: number, max: number, fallback?: F) =>
    documented(
      single(name)
        .regex(/^\d+$/, `${name} must be a whole number from ${min} to ${max}`)
        .transform(Number)
        .pipe(z.number().max(max, `${name} must be at most ${max}`).min(min, `${name} must be at least ${min}`).int())
        .optional()
        .transform((v) => (v ?? fallback) as number | F),
      { type: 'integer', minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }) },
    ),
  number: (name: string, min: number, max: number) =>
    documented(
      single(name)
        .regex(/^-?\d+(\.\d+)?$/, `${name} must be a number from ${min} to ${max}`)
        .transform(Number)
        .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`))
        .optional(),
      { type: 'number', minimum: min, maximum: max },
    ),
  boolean: (name: string) =>
    documented(
      oneOf(name, ['true', 'false'], `${name} must be true or false`)
        .transform((v) => v === 'true')
        .optional(),
      { type: 'boolean' },
    ),
  oneOf: <const V extends readonly [string, ...string[]]>(name: string, values: V) => oneOf(name, values).optional(),
};

/**
 * A chain name such as base: lowercase letters, digits and hyphens, at most 64. Bounded because
 * each name a lookup asks for is a record-cache entry of its own (api/reputation/cache.ts).
 */
export const chainName = (schema: z.ZodString) => schema.regex(/^[a-z0-9-]{1,64}$/, 'chain must be a chain name such as base (a-z, 0-9, -; at most 64)');

export const grades = ['A', 'B', 'C', 'D', 'F'] as const;
