// An import works in temporary tables, views and macros named import_*, which live on the writer's
// connection. They are dropped when the import ends, and before it starts in case an earlier one
// on this connection stopped halfway; a failed import needs nothing, its rollback removes them.
import type { WriteTx } from '../store/group-commit.ts';
import { quoteIdentifier } from './quote.ts';

export async function dropImportTempObjects(tx: WriteTx): Promise<void> {
  const objects = await tx.all(
    `SELECT 'VIEW' AS kind, view_name AS name FROM duckdb_views() WHERE temporary AND view_name LIKE 'import\\_%' ESCAPE '\\'
     UNION ALL
     SELECT 'TABLE', table_name FROM duckdb_tables() WHERE temporary AND table_name LIKE 'import\\_%' ESCAPE '\\'
     UNION ALL
     SELECT DISTINCT 'MACRO', function_name FROM duckdb_functions()
      WHERE database_name = 'temp' AND function_type = 'macro' AND function_name LIKE 'import\\_%' ESCAPE '\\'`,
  );
  // Views first: they read the tables.
  for (const kind of ['VIEW', 'TABLE', 'MACRO']) {
    for (const object of objects.filter((o) => o.kind === kind)) {
      await tx.run(`DROP ${kind} IF EXISTS temp.${quoteIdentifier(String(object.name))}`);
    }
  }
}
