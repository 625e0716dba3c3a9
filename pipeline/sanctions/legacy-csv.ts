// Records of OFAC's legacy CSV files (sdn.csv, sdn_comments.csv, add.csv, alt.csv): no header,
// CRLF line ends, fields quoted when they hold commas, `-0-` (sometimes `-0- `) for an empty
// field, and a Ctrl-Z byte after the last line, a leftover of DOS end-of-file markers.
// Any irregularity throws with its line number: a half-downloaded file must not pass as a list.

const endOfFileMarker = '\x1a';

/** Splits the text into records of exactly `columns` fields; `-0-` becomes ''. */
export function readLegacyCsv(text: string, columns: number, fileLabel: string): string[][] {
  const body = text.endsWith(endOfFileMarker) ? text.slice(0, -1) : text;
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;

  const endField = () => {
    fields.push(field.trim() === '-0-' ? '' : field);
    field = '';
  };
  const endRecord = () => {
    endField();
    if (fields.length !== columns) {
      throw new Error(`${fileLabel} line ${recordLine}: ${fields.length} fields, expected ${columns}`);
    }
    records.push(fields);
    fields = [];
    recordLine = line;
  };

  while (i < body.length) {
    const ch = body[i]!;
    if (ch === '"' && field === '') {
      // A quoted field runs to the next quote not doubled; it may hold commas and line breaks.
      let j = i + 1;
      for (;;) {
        const close = body.indexOf('"', j);
        if (close === -1) throw new Error(`${fileLabel} line ${recordLine}: unterminated quoted field`);
        if (body[close + 1] === '"') {
          field += body.slice(j, close + 1);
          j = close + 2;
          continue;
        }
        field += body.slice(j, close);
        line += countLineBreaks(body, i, close);
        i = close + 1;
        break;
      }
      const next = body[i];
      if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') {
        throw new Error(`${fileLabel} line ${recordLine}: text after a closing quote`);
      }
      continue;
    }
    if (ch === ',') {
      endField();
    } else if (ch === '"') {
      throw new Error(`${fileLabel} line ${line}: a quote inside an unquoted field`);
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i++;
      line++;
      endRecord();
    } else {
      field += ch;
    }
    i++;
  }
  // The last record may lack its line break; an empty tail after the final CRLF is no record.
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}

function countLineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) if (text[k] === '\n') n++;
  return n;
}
