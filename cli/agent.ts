// `reputation agent …`: the buyer-agent client (gate/agent) on the command line. `agent fetch`
// asks a gated merchant with an identity header (spec 5.6's order), shows the verify URL (a QR
// code on a terminal, a plain line otherwise), polls with a progress line, stores the operator
// token and prints the merchant's answer; `agent token` shows or clears the stored tokens (their
// prefixes and expiries, never a whole secret). Progress and prompts go to stderr, the answer to
// stdout.
import { homedir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { AgentError, createAgentClient, openCredentialStore, prefixOf } from '../gate/agent/index.ts';
import { formatRows } from './output.ts';
import { UsageError } from './usage-error.ts';

/** `$XDG_CONFIG_HOME/wallet-reputation/credentials.json`, else `~/.config/wallet-reputation/credentials.json`. */
export function defaultCredentialStore(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return path.join(base, 'wallet-reputation', 'credentials.json');
}

interface FetchOptions {
  method?: string;
  data?: string;
  header: string[];
  wallet?: string;
  storedToken: boolean;
  store?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function registerAgentCommands(program: Command): void {
  const agent = program.command('agent').description('the buyer-agent client: call merchants gated by this identity service, verify once, keep the token');

  agent
    .command('fetch')
    .description(
      'request URL from a gated merchant with an identity header (a given --header, else the stored operator token, else --wallet); ' +
        'on identity_verification_required show the verify URL (a QR code on a terminal), poll until verified, store the token and retry; print the answer',
    )
    .argument('<url>', 'the merchant endpoint (http or https)')
    .option('--method <method>', 'HTTP method (default GET, POST with --data)')
    .option('--data <json>', 'a JSON request body (sent as application/json)')
    .option('--header <name:value>', 'a request header; repeatable (an X-Operator-Token or X-Wallet-Address given here wins)', collect, [])
    .option('--wallet <address>', 'the wallet address of your keystore, sent as X-Wallet-Address when no operator token applies')
    .option('--no-stored-token', 'do not present the stored operator token (a new one from a verification is still stored)')
    .option('--store <file>', `the credential store (default ${defaultCredentialStore()})`)
    .option('--json', 'print {"status", "body"} (or {"error"}) as one JSON line')
    .action(async (url: string, opts: FetchOptions) => runFetch(url, opts));

  agent
    .command('token')
    .description('show the stored operator tokens (service, prefix opc_xxxx, expiries; never the whole secret) or clear them')
    .argument('[action]', 'show (the default) or clear', 'show')
    .option('--store <file>', `the credential store (default ${defaultCredentialStore()})`)
    .option('--service <url>', 'clear: only this identity service\'s login')
    .option('--json', 'show: one JSON line per stored login')
    .action(async (action: string, opts: { store?: string; service?: string; json?: boolean }) => {
      if (action !== 'show' && action !== 'clear') throw new UsageError(`unknown action "${action}" of agent token: show or clear`);
      if (opts.service !== undefined && action !== 'clear') throw new UsageError('--service goes with agent token clear');
      const store = openCredentialStore(opts.store ?? defaultCredentialStore());
      if (action === 'clear') {
        if (opts.service !== undefined) httpUrl(opts.service, '--service');
        const removed = await store.remove(opts.service);
        process.stdout.write(`removed ${removed} stored login${removed === 1 ? '' : 's'} from ${store.path}\n`);
        return;
      }
      const now = Date.now();
      const rows = (await store.list()).map((c) => ({
        service: c.service,
        token: `${prefixOf(c.operatorToken)}…`,
        token_expires_at: c.operatorTokenExpiresAt,
        token_state: c.operatorTokenExpiresAt !== null && Date.parse(c.operatorTokenExpiresAt) <= now ? 'expired' : 'valid',
        refresh_token: c.refreshToken === null ? null : `${prefixOf(c.refreshToken)}…`,
        refresh_expires_at: c.refreshTokenExpiresAt,
        updated_at: c.updatedAt,
      }));
      if (opts.json) {
        for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(`no stored tokens in ${store.path}\n`);
        return;
      }
      process.stdout.write(formatRows(rows, 'table', { whole: '--json' }));
    });
}

async function runFetch(url: string, opts: FetchOptions): Promise<void> {
  httpUrl(url, 'the url');
  const headers = new Headers();
  for (const h of opts.header) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!headerName.test(name)) throw new UsageError(`--header takes NAME:VALUE, not ${JSON.stringify(h)}`);
    headers.append(name, h.slice(colon + 1).trim());
  }
  if (opts.data !== undefined) {
    try {
      JSON.parse(opts.data);
    } catch {
      throw new UsageError('--data must be JSON');
    }
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const method = (opts.method ?? (opts.data === undefined ? 'GET' : 'POST')).toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`--method takes an HTTP method, not ${JSON.stringify(opts.method)}`);
  if ((method === 'GET' || method === 'HEAD') && opts.data !== undefined) throw new UsageError(`--data cannot go with --method ${method}`);
  if (opts.wallet !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(opts.wallet) && !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(opts.wallet)) {
    throw new UsageError('--wallet takes an EVM address (0x and 40 hex digits) or a Solana address (base58)');
  }

  const tty = Boolean(process.stderr.isTTY);
  let drawn = false;
  const line = (text: string) => {
    if (drawn) process.stderr.write('\r\x1b[K');
    drawn = false;
    process.stderr.write(`${text}\n`);
  };
  const client = createAgentClient({
    credentialStore: opts.store ?? defaultCredentialStore(),
    walletAddress: opts.wallet,
    skipStoredToken: !opts.storedToken,
    onVerifyUrl: (verifyUrl, qr) => {
      if (tty) line(`\nTo continue, verify your identity: open this page (or scan the code with your phone)\n\n${qr}\n${verifyUrl}\n`);
      else line(`verify your identity at ${verifyUrl}`);
    },
    onProgress: (text) => {
      if (tty) {
        process.stderr.write(`\r${text}\x1b[K`);
        drawn = true;
      } else line(text);
    },
  });

  let res: Response;
  try {
    res = await client.fetch(url, { method, headers, body: opts.data });
  } catch (err) {
    if (drawn) process.stderr.write('\n');
    if (!(err instanceof AgentError)) {
      // fetch's "fetch failed" says nothing of where: name the address and the cause.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      if (err instanceof TypeError && cause) throw new Error(`could not reach ${url}: ${cause.code ?? cause.message}`);
      throw err;
    }
    const error = {
      code: err.code,
      message: err.message,
      ...(err.status !== null ? { status: err.status } : {}),
      ...(err.reasons.length > 0 ? { reasons: err.reasons } : {}),
      ...(err.userMessage !== null ? { user_message: err.userMessage } : {}),
      ...(err.supportEmail !== null ? { support_email: err.supportEmail } : {}),
      ...(err.supportSubject !== null ? { support_subject: err.supportSubject } : {}),
    };
    if (opts.json) process.stdout.write(`${JSON.stringify({ error })}\n`);
    process.stderr.write(`reputation: ${err.code}: ${err.message}\n`);
    if (err.userMessage !== null) process.stderr.write(`${err.userMessage}\n`);
    if (err.supportEmail !== null) process.stderr.write(`support: ${err.supportEmail}${err.supportSubject !== null ? `, subject "${err.supportSubject}"` : ''}\n`);
    process.exitCode = 1;
    return;
  }
  if (drawn) process.stderr.write('\n');
  const text = await res.text();
  if (opts.json) {
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // Not JSON: the text as it is.
    }
    process.stdout.write(`${JSON.stringify({ status: res.status, body })}\n`);
  } else {
    process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  }
  if (!res.ok) {
    process.stderr.write(`reputation: the merchant answered ${res.status}\n`);
    process.exitCode = 1;
  }
}

function httpUrl(value: string, what: string): URL {
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u;
  } catch {
    // below
  }
  throw new UsageError(`${what} must be an http or https URL, not ${JSON.stringify(value)}`);
}
