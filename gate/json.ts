// One test of "a JSON object", for what the gate and the buyer-agent client read (answers of the
// service, denials of merchants, the credential store) and for a response body Koa and Express
// would send as JSON. Plain: its prototype is an Object.prototype (of any realm) or null, so a
// Buffer, a stream or an array is not one.
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}
