// Runs the real `reputation` command as a child process, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const bin = path.join(repoRoot, 'bin/reputation.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', ...extra };
  // The tests choose their chains explicitly.
  for (const key of Object.keys(env)) if (key.startsWith('RPC_URL_') && !(key in extra)) delete env[key];
  delete env.REDIS_URL;
  return env;
}

/**
 * Runs the CLI in `cwd` (the repository root unless told) and collects its output and exit code;
 * `input` is written to its standard input, which is then closed.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot, input?: string): Promise<CliResult> {
  return spawnCli(args, env, cwd, input).done;
}

/** runCli() that also shows the output so far while the command runs. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot, input?: string): { output(): CliResult; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [bin, ...args], { env, cwd });
  if (input !== undefined) child.stdin.end(input);
  return collected(child);
}

function collected(child: ChildProcess): { output(): CliResult; done: Promise<CliResult> } {
  const out: CliResult = { code: null, stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (out.stdout += d));
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ ...out, code: (out.code = code) }));
  });
  return { output: () => ({ ...out }), done };
}

/**
 * spawnCli() on a terminal: the command runs under script(1), which gives it a pseudo-terminal, as
 * a person at a shell would (isTTY true). Its stdout and stderr arrive together, as `stdout`.
 */
export function spawnCliOnTerminal(args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): { output(): CliResult; done: Promise<CliResult> } {
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, bin, ...args].map(quote).join(' ');
  // A wide terminal: the verify URL stays on one line.
  return collected(spawn('script', ['-qefc', `stty cols 300 2>/dev/null; ${command}`, '/dev/null'], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] }));
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  adminUrl: string;
  adminToken: string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Spawns `reputation serve` and resolves once its admin endpoint file names this process. */
export async function startServe(dataDir: string, env: NodeJS.ProcessEnv = cliEnv(dataDir)): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, 'serve'], { env, cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  const infoFile = path.join(dataDir, 'admin.json');
  for (let waited = 0; waited < 30_000; waited += 50) {
    if (done) throw new Error(`serve exited early: ${stderr}`);
    if (existsSync(infoFile)) {
      const info = JSON.parse(readFileSync(infoFile, 'utf8')) as { pid: number; url: string };
      const serving = /"url":"([^"]+)"/.exec(stderr);
      if (info.pid === child.pid && serving) {
        return { child, url: serving[1]!, adminUrl: info.url, adminToken: readFileSync(path.join(dataDir, 'admin.token'), 'utf8'), stderr: () => stderr, exited };
      }
    }
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`serve did not become ready: ${stderr}`);
}

export async function stopServe(serve: ServeProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  serve.child.kill(signal);
  return serve.exited;
}
