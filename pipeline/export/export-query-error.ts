/**
 * The user's query over the exports could not run (no export, refused, or DuckDB rejected it): one
 * line for the user. Apart from ./query-exports.ts so the CLI can recognise it without loading DuckDB.
 */
export class ExportQueryError extends Error {
  override name = 'ExportQueryError';
}
