// commander parser for whole-number options; a bad value is a usage error (exit 2).
import { InvalidArgumentError } from 'commander';

export function wholeNumber(min = 0, what = 'a whole number', max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  const expected = max < Number.MAX_SAFE_INTEGER ? `expected ${what} from ${min} to ${max}` : min > 0 ? `expected ${what}, at least ${min}` : `expected ${what}`;
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(expected);
    return Number(value);
  };
}
