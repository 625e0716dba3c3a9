// How the CLI prints rows (cli/output.ts): tables for people cut long and multi-line values to one
// short line and say so; csv and json keep every value whole.
import { describe, expect, it } from 'vitest';
import { formatRows } from '../cli/output.ts';

describe('formatRows', () => {
  const long = 'x'.repeat(100);
  const rows = [{ job: 'ingest', result: { chains: [{ chain: 'base', logs: 3 }] } }, { job: 'score', result: `first line\nsecond line` }, { job: 'export', result: long }];

  it('a table cuts a value at 80 characters or its first line, and says so under the table', () => {
    expect(formatRows(rows, 'table', { whole: '--format csv or json' }).split('\n')).toEqual([
      `job     result`,
      `------  ${'-'.repeat(80)}`,
      `ingest  {"chains":[{"chain":"base","logs":3}]}`,
      `score   first line…`,
      `export  ${'x'.repeat(79)}…`,
      '(3 rows; values cut at 80 characters or a line: --format csv or json gives them whole)',
      '',
    ]);
  });

  it("the note names the command's own way to whole values, and none when it has none", () => {
    expect(formatRows(rows, 'table', { whole: '--json' }).trimEnd().split('\n').at(-1)).toBe('(3 rows; values cut at 80 characters or a line: --json gives them whole)');
    expect(formatRows(rows, 'table').trimEnd().split('\n').at(-1)).toBe('(3 rows; values cut at 80 characters or a line)');
  });

  it('a table keeps a value of exactly 80 characters whole', () => {
    expect(formatRows([{ a: 'y'.repeat(80) }], 'table')).toBe(`a\n${'-'.repeat(80)}\n${'y'.repeat(80)}\n(1 row)\n`);
  });

  it('NULL is an empty cell in a table and in csv, null in json', () => {
    const withNull = [{ a: null, b: 1 }];
    expect(formatRows(withNull, 'table')).toBe('a  b\n-  -\n   1\n(1 row)\n');
    expect(formatRows(withNull, 'csv')).toBe('a,b\n,1\n');
    expect(formatRows(withNull, 'json')).toBe('{"a":null,"b":1}\n');
  });

  it('a table of short values says only how many rows', () => {
    expect(formatRows([{ a: 1, b: 'two' }], 'table')).toBe('a  b\n-  ---\n1  two\n(1 row)\n');
  });

  it('csv and json give every value whole', () => {
    expect(formatRows(rows, 'csv')).toBe(`job,result\ningest,"{""chains"":[{""chain"":""base"",""logs"":3}]}"\nscore,"first line\nsecond line"\nexport,${long}\n`);
    expect(formatRows(rows, 'json').trim().split('\n').map((l) => JSON.parse(l))).toEqual(rows);
  });

  it('csv quotes a value holding a comma or a quote, doubling the quote (RFC 4180)', () => {
    expect(formatRows([{ a: 'x,y', b: 'say "hi"', c: 'plain' }], 'csv')).toBe('a,b,c\n"x,y","say ""hi""",plain\n');
  });

  it('no rows: a table says so, json prints nothing, csv only the header', () => {
    expect(formatRows([], 'table', { columns: ['a'] })).toBe('(no rows)\n');
    expect(formatRows([], 'json', { columns: ['a'] })).toBe('');
    expect(formatRows([], 'csv', { columns: ['a', 'b'] })).toBe('a,b\n');
  });
});
