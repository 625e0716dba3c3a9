// How the CLI prints results: aligned tables for people, CSV and JSON for programs.

type Rows = Record<string, unknown>[];

export interface TableOptions {
  /** The header, given even when there are no rows; by default the rows' keys. */
  columns?: string[];
  /** The command's way to get values a table cut whole (its option), named under the table. */
  whole?: string;
}

export function printRows(value: unknown, format: 'table' | 'csv' | 'json', options: TableOptions = {}): void {
  const rows = (Array.isArray(value) ? value : [value]) as Rows;
  process.stdout.write(formatRows(rows, format, options));
}

export function formatRows(rows: Rows, format: 'table' | 'csv' | 'json', options: TableOptions = {}): string {
  const columns = options.columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (format === 'json') return rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (format === 'csv') {
    const quote = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
    return [columns, ...rows.map((r) => columns.map((c) => cell(r[c])))].map((line) => line.map(quote).join(',')).join('\n') + '\n';
  }
  if (rows.length === 0) return '(no rows)\n';
  // A table is for reading: a long or multi-line value (a job's result, a query plan) is cut to
  // one line of tableCellWidth characters; csv and json give every value whole.
  let cut = false;
  const fit = (s: string) => {
    const line = s.split('\n', 1)[0]!;
    if (line === s && s.length <= tableCellWidth) return s;
    cut = true;
    return `${line.slice(0, tableCellWidth - 1)}…`;
  };
  const table = [columns, ...rows.map((r) => columns.map((c) => fit(cell(r[c]))))];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  const render = (line: string[]) => line.map((s, i) => s.padEnd(widths[i]!)).join('  ').trimEnd();
  const howWhole = options.whole ? `: ${options.whole} gives them whole` : '';
  const footer = `(${rows.length} row${rows.length === 1 ? '' : 's'}${cut ? `; values cut at ${tableCellWidth} characters or a line${howWhole}` : ''})`;
  return [render(table[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(render)].join('\n') + `\n${footer}\n`;
}

const tableCellWidth = 80;

export function printAccount(account: { id: string; api_key: string; plan: string }, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ id: account.id, api_key: account.api_key, plan: account.plan })}\n`);
    return;
  }
  process.stdout.write(`account ${account.id} (plan ${account.plan})\napi key ${account.api_key}\nThe key is shown only once: store it now.\n`);
}
