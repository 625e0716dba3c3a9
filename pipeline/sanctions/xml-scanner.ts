// A minimal streaming XML tag scanner, written for OFAC's sdn_advanced.xml (about 100 MB: it is
// fed in chunks and never held whole). It is not a general XML parser.
//
// Handles: start, end and empty-element tags; attributes in single or double quotes, `>` inside
// values included; the five predefined entities and numeric character references; comments,
// CDATA sections, processing instructions and the XML declaration (skipped); a leading BOM.
// Checks: every end tag closes the innermost open element, there is one root element, nothing
// but whitespace sits outside it, and the document does not stop with elements still open, so a
// truncated download fails instead of yielding a shorter list.
//
// Limits: no DOCTYPE or DTD (refused, so no custom entities and no entity expansion); element
// names keep only their local part (`ns:Name` → `Name`), attribute names stay as written, and
// namespaces are not resolved; attribute values are not whitespace-normalised; the caller decodes
// bytes (UTF-8) to text.

export interface XmlHandler {
  open(name: string, attributes: Record<string, string>): void;
  close(name: string): void;
  /** Character data of the innermost open element; may arrive in several pieces. */
  text(text: string): void;
}

export interface XmlScanner {
  write(chunk: string): void;
  /** Processes what is left and checks the document is complete. */
  end(): void;
}

const attributePattern = /\s*([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const namePattern = /^[A-Za-z_][\w.:-]*$/;
const predefinedEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function createXmlScanner(handler: XmlHandler): XmlScanner {
  let buffer = '';
  let pos = 0;
  let consumed = 0; // characters dropped from the front of the buffer, for error offsets
  const open: string[] = [];
  let rootClosed = false;
  let started = false;

  const fail = (message: string): never => {
    throw new Error(`XML at character ${consumed + pos}: ${message}`);
  };

  const emitText = (raw: string, decode: boolean) => {
    if (open.length === 0) {
      if (raw.trim() !== '') fail('text outside the root element');
      return;
    }
    if (raw !== '') handler.text(decode ? decodeReferences(raw, fail) : raw);
  };

  // Runs one token starting at `pos`; false when the buffer ends inside it and more is needed.
  const step = (final: boolean): boolean => {
    if (pos >= buffer.length) return false;
    if (buffer[pos] !== '<') {
      const lt = buffer.indexOf('<', pos);
      if (lt === -1 && !final) return false;
      const end = lt === -1 ? buffer.length : lt;
      emitText(buffer.slice(pos, end), true);
      pos = end;
      return true;
    }
    const until = (terminator: string, from: number): number | null => {
      const at = buffer.indexOf(terminator, from);
      if (at !== -1) return at;
      if (final) fail(`unterminated markup, expected ${terminator}`);
      return null;
    };
    if (buffer.startsWith('<!--', pos)) {
      const end = until('-->', pos + 4);
      if (end === null) return false;
      pos = end + 3;
      return true;
    }
    if (buffer.startsWith('<![CDATA[', pos)) {
      const end = until(']]>', pos + 9);
      if (end === null) return false;
      emitText(buffer.slice(pos + 9, end), false);
      pos = end + 3;
      return true;
    }
    if (buffer.startsWith('<?', pos)) {
      const end = until('?>', pos + 2);
      if (end === null) return false;
      pos = end + 2;
      return true;
    }
    if (buffer.startsWith('<!', pos)) {
      if (buffer.length - pos < 9 && !final) return false;
      fail('DOCTYPE and other declarations are not supported');
    }
    const end = tagEnd(buffer, pos + 1);
    if (end === -1) {
      if (final) fail('unterminated tag');
      return false;
    }
    const inner = buffer.slice(pos + 1, end);
    if (inner.startsWith('/')) closeTag(inner.slice(1).trim());
    else openTag(inner);
    pos = end + 1;
    return true;
  };

  const openTag = (inner: string) => {
    const selfClosing = inner.endsWith('/');
    const body = selfClosing ? inner.slice(0, -1) : inner;
    const nameEnd = body.search(/\s|$/);
    const name = body.slice(0, nameEnd);
    if (!namePattern.test(name)) fail(`malformed tag <${inner}>`);
    if (open.length === 0 && rootClosed) fail('a second root element');
    const attributes: Record<string, string> = {};
    attributePattern.lastIndex = nameEnd;
    let at = nameEnd;
    for (let m = attributePattern.exec(body); m; m = attributePattern.exec(body)) {
      attributes[m[1]!] = decodeReferences(m[2] ?? m[3]!, fail);
      at = attributePattern.lastIndex;
    }
    if (body.slice(at).trim() !== '') fail(`malformed attributes in <${name}>`);
    open.push(name);
    handler.open(localName(name), attributes);
    if (selfClosing) closeTag(name);
  };

  const closeTag = (name: string) => {
    const innermost = open.pop();
    if (innermost !== name) fail(innermost === undefined ? `</${name}> closes nothing` : `</${name}> closes <${innermost}>`);
    if (open.length === 0) rootClosed = true;
    handler.close(localName(name));
  };

  return {
    write(chunk) {
      buffer = buffer.slice(pos) + chunk;
      consumed += pos;
      pos = 0;
      if (!started && buffer.length > 0) {
        started = true;
        if (buffer.startsWith('\ufeff')) pos = 1;
      }
      while (step(false));
    },
    end() {
      while (step(true));
      if (open.length > 0) fail(`document ends inside <${open[open.length - 1]}>`);
      if (!rootClosed) fail('no root element');
    },
  };
}

// The `>` that ends a tag, skipping any inside quoted attribute values; -1 if not yet in the buffer.
function tagEnd(text: string, from: number): number {
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '>') {
      return i;
    }
  }
  return -1;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

function decodeReferences(raw: string, fail: (message: string) => never): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&\s]*)(;?)/g, (whole, ref: string, semicolon: string) => {
    if (semicolon === '') return fail(`bare & in "${raw.slice(0, 60)}"`);
    if (ref.startsWith('#x')) return codePoint(ref.slice(2), 16, whole, fail);
    if (ref.startsWith('#')) return codePoint(ref.slice(1), 10, whole, fail);
    const value = predefinedEntities[ref];
    return value ?? fail(`unknown entity ${whole}`);
  });
}

function codePoint(digits: string, radix: number, whole: string, fail: (message: string) => never): string {
  const value = /^[0-9a-fA-F]+$/.test(digits) ? parseInt(digits, radix) : NaN;
  if (!Number.isInteger(value) || value > 0x10ffff || (radix === 10 && !/^\d+$/.test(digits))) {
    return fail(`bad character reference ${whole}`);
  }
  return String.fromCodePoint(value);
}
