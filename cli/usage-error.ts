// A mistake in how a command was called, found after parsing: printed as one line, exit code 2.
export class UsageError extends Error {
  override name = 'UsageError';
}
