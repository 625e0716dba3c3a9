// commander parser for whole-number options; a bad value is a usage error (exit 2).
import { InvalidArgumentError } from 'commander';

export function wholeNumber(min = 0, what = 'a whole number'): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min) throw new InvalidArgumentError(min > 0 ? `expected ${what}, at least ${min}` : `expected ${what}`);
    return Number(value);
  };
}
