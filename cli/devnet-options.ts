// Options of `reputation devnet` (and the demo's history), kept apart from the devnet itself so
// the CLI can describe them without loading ganache and solc (which costs seconds per command).
import { wholeNumber } from './whole-number.ts';

export interface DevnetCommandOptions {
  agents: number;
  /** false with --no-payments. */
  payments: number | false;
  seed: string;
  days: number;
  truth?: string;
}

export const DEFAULT_AGENTS = 24;
export const DEFAULT_PAYMENTS = 200;
/** Days of block time a simulated history spans (devnet/simulate.ts uses the same default). */
export const DEFAULT_DAYS = 90;

/** commander parser for --days: the simulation needs a week at least. */
export const parseDays = wholeNumber(7);
