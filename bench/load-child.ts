// The two ends of a bench's load child: autocannon runs in its own process so that its CPU is not
// the server's event loop's. The bench starts it once (`startLoadChild`) and sends it one command
// per phase over IPC; the child (`serveLoads`) runs it at once and answers with its figures.
//
// Protocol: the child sends { ready: true }; then, for each { cmd: 'load', … }, one
// { ok: true, result } or { ok: false, error }; { cmd: 'stop' } disconnects it.
import { execFile, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import type { ScoreDataSize } from './score-data.ts';

const generator = fileURLToPath(new URL('./score-data.ts', import.meta.url));

/** What every phase reports: autocannon's result, the part the benches print and check. */
export interface LoadFigures {
  requests: number;
  seconds: number;
  p50_ms: number;
  p99_ms: number;
  /** Answers other than 2xx, connection errors and timeouts, with the statuses seen. */
  failed: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
}

export function loadFigures(result: autocannon.Result): LoadFigures {
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count ?? 0])),
  };
}

/** The child's end: runs `load` for each command until told to stop. */
export function serveLoads<Load extends { cmd: 'load' }>(load: (command: Load) => Promise<LoadFigures>): void {
  process.on('message', (command: Load | { cmd: 'stop' }) => {
    if (command.cmd === 'stop') {
      process.disconnect?.();
      return;
    }
    load(command as Load).then(
      (result) => process.send!({ ok: true, result }),
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  process.send!({ ready: true });
}

export interface LoadChild<Load> {
  run(command: Load): Promise<LoadFigures>;
  stop(): Promise<void>;
}

/** The bench's end: forks `file` (a module calling `serveLoads`) and waits until it is ready. */
export async function startLoadChild<Load extends { cmd: 'load' }>(file: string): Promise<LoadChild<Load>> {
  const proc = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<never>((_, reject) => proc.on('exit', (code) => reject(new Error(`${file} exited with ${code}`))));
  exited.catch(() => undefined);
  const nextMessage = () => Promise.race([new Promise<unknown>((resolve) => proc.once('message', resolve)), exited]);
  await nextMessage();
  let stopped = false;
  return {
    async run(command) {
      const reply = nextMessage();
      proc.send(command);
      const answer = (await reply) as { ok: boolean; result?: LoadFigures; error?: string };
      if (!answer.ok) throw new Error(`bench load (${file}): ${answer.error}`);
      return answer.result!;
    },
    async stop() {
      if (stopped || proc.exitCode !== null) return;
      stopped = true;
      const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.send({ cmd: 'stop' });
      await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5_000)).then(() => void proc.kill())]);
    },
  };
}

/**
 * A temporary data directory holding the score bench's synthetic chain of `size` (bench/score-data.ts,
 * in a child process), and the load child of `file`, started while the data is made (it waits for
 * its first command); both gone once `use` has ended.
 */
export async function withDataAndLoad<Load extends { cmd: 'load' }, T>(
  label: string,
  file: string,
  size: ScoreDataSize,
  use: (dataDir: string, load: LoadChild<Load>, generateMs: number) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `bench-${label}-`));
  try {
    const [loadStarted, generated] = await Promise.allSettled([startLoadChild<Load>(file), generate(dataDir, size)]);
    if (loadStarted.status === 'rejected') throw loadStarted.reason;
    const load = loadStarted.value;
    try {
      if (generated.status === 'rejected') throw generated.reason;
      return await use(dataDir, load, generated.value);
    } finally {
      await load.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function generate(dir: string, size: ScoreDataSize): Promise<number> {
  const env = { ...process.env, BENCH_SCORE_ADDRESSES: String(size.addresses), BENCH_SCORE_TRANSFERS: String(size.transfers), BENCH_SCORE_AGENTS: String(size.agents) };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', generator, dir], { env, maxBuffer: 1 << 20 });
  return (JSON.parse(stdout) as { generate_ms: number }).generate_ms;
}
