// Progress of long jobs on the terminal (cli/progress.ts): a bar redrawn in place on a TTY, plain
// lines at most every two seconds otherwise, and always the last one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProgressReporter, describe as describeProgress } from '../cli/progress.ts';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream };
}

describe('progress reporter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  // Off a terminal: the first update is printed, later ones within 2 s are not, but the final (done = total) one always is.
  it('prints plain lines at most every two seconds, and always the last', () => {
    const { writes, stream } = fakeStream(false);
    const reporter = createProgressReporter(stream);
    reporter.update({ done: 1, total: 10, unit: 'blocks' });
    reporter.update({ done: 5, total: 10, unit: 'blocks' });
    vi.advanceTimersByTime(500);
    reporter.update({ done: 10, total: 10, unit: 'blocks' });
    vi.advanceTimersByTime(2_000);
    reporter.update({ done: 11, total: 20, unit: 'blocks' });
    reporter.done();
    expect(writes).toEqual(['progress 10% 1/10 blocks\n', 'progress 100% 10/10 blocks\n', 'progress 55% 11/20 blocks\n']);
  });

  // On a terminal: a bar redrawn with \r, ended by one newline when done, and no newline when nothing was drawn.
  it('draws a bar on a TTY and ends it with a newline', () => {
    const { writes, stream } = fakeStream(true);
    const reporter = createProgressReporter(stream);
    reporter.done();
    expect(writes).toEqual([]);
    reporter.update({ done: 1, total: 2, unit: 'runs' });
    reporter.update({ done: 3, total: 2, unit: 'runs' });
    reporter.done();
    expect(writes).toEqual([`\r[${'#'.repeat(12)}${'-'.repeat(12)}] 50% 1/2 runs\x1b[K`, `\r[${'#'.repeat(24)}] 150% 3/2 runs\x1b[K`, '\n']);
  });

  // The percentage is rounded down (never 100% before the end); rate rounds, ETA rounds up; a zero total is 0%.
  it('describes progress', () => {
    expect(describeProgress({ done: 999, total: 1000, unit: 'addresses' })).toBe('99% 999/1000 addresses');
    expect(describeProgress({ done: 0, total: 0, unit: 'logs' })).toBe('0% 0/0 logs');
    expect(describeProgress({ done: 1, total: 3, unit: 'logs', ratePerSecond: 12.6, etaSeconds: 4.2, detail: 'base token' })).toBe('33% 1/3 logs 13/s ETA 5s base token');
    expect(describeProgress({ done: 1, total: 3, unit: 'logs', etaSeconds: null })).toBe('33% 1/3 logs');
  });
});
