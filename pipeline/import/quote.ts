// Quoting for the SQL an import assembles: file column names are data, never trusted as SQL.
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
