// talisman ships no TypeScript types; this declares the one function screening uses.
declare module 'talisman/metrics/jaro-winkler' {
  /** Jaro-Winkler similarity of two strings, 0 (nothing alike) to 1 (equal). */
  export default function jaroWinkler(a: string, b: string): number;
}
