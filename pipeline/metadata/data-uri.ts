// `data:` URIs (RFC 2397) carry the registration file on-chain: `data:application/json;base64,...`
// as the spec recommends, and in the wild also percent-encoded or raw JSON after the comma, with
// or without a media type or charset. The media type is not checked: the JSON parse decides.

/** The bytes a data: URI carries, or null when it is not a data: URI at all. */
export function decodeDataUri(uri: string): Buffer | null {
  const match = /^data:([^,]*),(.*)$/is.exec(uri);
  if (!match) return null;
  const parameters = match[1]!.split(';').map((p) => p.trim().toLowerCase());
  const payload = match[2]!;
  if (parameters.includes('base64')) return Buffer.from(decodePercent(payload), 'base64');
  return Buffer.from(decodePercent(payload), 'utf8');
}

// Registrants often put raw JSON after the comma; a stray "%" (as in "100% uptime") then makes
// strict percent-decoding fail, and the raw text is what they meant.
function decodePercent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
