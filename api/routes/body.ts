// JSON body validation shared by the routes that take one: a zod schema over the parsed body; the
// first problem answers 400 bad_request in words that name the field (spec 7.1).
import type { z } from 'zod';
import { ApiError } from '../errors.ts';

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') throw new ApiError('bad_request', `${issue.keys[0]}: not a field of this request`);
  if (issue.path.length === 0) throw new ApiError('bad_request', 'the body must be a JSON object');
  throw new ApiError('bad_request', issue.message);
}
