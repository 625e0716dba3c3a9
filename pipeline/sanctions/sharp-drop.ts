// A new list that drops more than a tenth of what is loaded is refused unless the caller confirms
// it (allowShrink): a file cut short at a line boundary (a text list, or sdn.csv without its
// trailing Ctrl-Z) parses as a shorter list, and loading it would clear real hits. Real
// delistings of that size are rare and worth a person's look; until then the loaded list, which
// errs on the side of a hit, stays. The same rule guards the addresses and the names.

/** The share of the loaded items a refresh may drop without allowShrink. */
export const maxUnconfirmedDrop = 0.1;

/** A refresh refused because the new list drops too many of the loaded items. */
export class ListShrinkError extends Error {
  override name = 'ListShrinkError';
}

/**
 * Throws ListShrinkError when more than maxUnconfirmedDrop of `loaded` (keys of what is loaded)
 * is missing from `kept` (keys of the new list). `what` names the items, e.g. "addresses".
 */
export function refuseSharpDrop(description: string, loaded: string[], kept: Set<string>, what: string): void {
  const dropped = loaded.filter((key) => !kept.has(key)).length;
  if (dropped <= loaded.length * maxUnconfirmedDrop) return;
  throw new ListShrinkError(
    `${description}: lacks ${dropped} of the ${loaded.length} loaded ${what} (more than ${maxUnconfirmedDrop * 100}%); ` +
      'a download cut short reads as a shorter list, so the previous list stays. If OFAC did delist them, ' +
      'refresh with {"allowShrink": true}',
  );
}
