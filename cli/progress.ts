// Progress of long jobs on the terminal: a bar redrawn in place on a TTY, plain lines (at most
// one every few seconds) otherwise, so logs of scheduled runs stay readable.
import type { JobProgress } from '../jobs/run-log.ts';

export interface ProgressReporter {
  update(progress: JobProgress): void;
  done(): void;
}

const plainEveryMs = 2_000;

export function createProgressReporter(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  let lastPlain = 0;
  let drawn = false;
  return {
    update(p) {
      const line = describe(p);
      if (stream.isTTY) {
        const width = 24;
        const filled = p.total > 0 ? Math.min(width, Math.round((p.done / p.total) * width)) : 0;
        stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${line}\x1b[K`);
        drawn = true;
      } else if (Date.now() - lastPlain >= plainEveryMs || p.done >= p.total) {
        lastPlain = Date.now();
        stream.write(`progress ${line}\n`);
      }
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

export function describe(p: JobProgress): string {
  const percent = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 0;
  const parts = [`${percent}%`, `${p.done}/${p.total} ${p.unit}`];
  if (p.ratePerSecond !== undefined) parts.push(`${Math.round(p.ratePerSecond)}/s`);
  if (p.etaSeconds !== undefined && p.etaSeconds !== null) parts.push(`ETA ${Math.ceil(p.etaSeconds)}s`);
  if (p.detail) parts.push(p.detail);
  return parts.join(' ');
}
