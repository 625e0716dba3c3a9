// A bad argument to an admin operation: reported to the caller (exit 2 in the CLI), not logged as a
// failure. Its own module so the CLI can recognise it without loading the operations.
export class OperationInputError extends Error {
  override name = 'OperationInputError';
}
