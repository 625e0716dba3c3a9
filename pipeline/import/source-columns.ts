// Which file column feeds each column of a kind, and the view `import_source` that presents the
// staged file (`import_file`) under those names for the checks in sql/import/check_*.sql.
//
// Files name their columns as the tables do. One other layout is recognised: the ERC-8004 agents
// catalog (reldothescribe/erc8004-catalog, one JSON object a line), which `--kind agents` takes as
// it is. A file is read as the catalog when it has a `registeredBlock` column and no
// `registered_block`; then id → agent_id, registeredBlock → registered_block, txHash → tx_hash,
// rawMetadata → registration, registry is the official Identity Registry unless a `registry` column
// says otherwise, and a line carrying `error` (the catalog's stub for an agent it could not sync)
// is a bad row with that error as its reason.
import { ImportFileError } from './errors.ts';
import { kindSpecs, type ImportKind } from './kinds.ts';
import { quoteIdentifier } from './quote.ts';

/** ERC-8004 Identity Registry, the same address on every chain the catalog lists. */
export const officialIdentityRegistry = '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432';

const catalogColumns: Readonly<Record<string, string>> = {
  agent_id: 'id',
  registered_block: 'registeredBlock',
  tx_hash: 'txHash',
  registration: 'rawMetadata',
};
const catalogStubColumn = 'error';

type Source = { column: string } | { constant: string } | null;

export interface SourceColumns {
  sources: Record<string, Source>;
  stubColumn: string | null;
}

/** Every file column an import of `kind` may read, so staging copies only those. */
export function wantedColumns(kind: ImportKind): string[] {
  const own = [...kindSpecs[kind].columns];
  return kind === 'agents' ? [...own, ...Object.values(catalogColumns), catalogStubColumn] : own;
}

/** Maps the columns found in the file; a required column that is missing refuses the file. */
export function sourceColumns(kind: ImportKind, found: readonly string[], file: string): SourceColumns {
  const spec = kindSpecs[kind];
  const catalog = kind === 'agents' && found.includes('registeredBlock') && !found.includes('registered_block');
  const sources: Record<string, Source> = {};
  const missing: string[] = [];
  for (const column of spec.columns) {
    const name = catalog ? (catalogColumns[column] ?? column) : column;
    if (found.includes(name)) sources[column] = { column: name };
    else if (catalog && column === 'registry') sources[column] = { constant: officialIdentityRegistry };
    else if (spec.optional.includes(column)) sources[column] = null;
    else missing.push(name);
  }
  if (missing.length > 0) {
    const names = missing.map((name) => `"${name}"`).join(', ');
    throw new ImportFileError(
      `${file} cannot be imported as ${kind}: missing ${missing.length === 1 ? 'column' : 'columns'} ${names} ` +
        `(required: ${spec.columns.filter((c) => !spec.optional.includes(c)).join(', ')}; ` +
        `found: ${found.length > 0 ? found.join(', ') : 'none'})`,
    );
  }
  return {
    sources,
    stubColumn: catalog && found.includes(catalogStubColumn) ? catalogStubColumn : null,
  };
}

export function sourceViewSql(kind: ImportKind, mapping: SourceColumns): string {
  const columns = kindSpecs[kind].columns.map((column) => {
    const source = mapping.sources[column];
    const value = !source
      ? 'NULL::VARCHAR'
      : 'column' in source
        ? quoteIdentifier(source.column)
        : `'${source.constant.replaceAll("'", "''")}'`;
    return `${value} AS ${quoteIdentifier(column)}`;
  });
  const stub = mapping.stubColumn ? quoteIdentifier(mapping.stubColumn) : null;
  const malformed = stub
    ? `coalesce(malformed, CASE WHEN ${stub} IS NOT NULL THEN 'catalog error stub: ' || ${stub} END)`
    : 'malformed';
  return `CREATE OR REPLACE TEMP VIEW import_source AS
SELECT line, ${malformed} AS malformed, ${columns.join(', ')}
  FROM import_file`;
}
