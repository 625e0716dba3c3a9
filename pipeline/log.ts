// A tiny structured logger: one line per event on stderr, `time level scope message {fields}`.
// Passed in as a dependency so tests can silence or capture it. Never give it a secret.
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export function createLogger(scope = 'reputation', write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const emit = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    const extra = fields ? ` ${JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}` : '';
    write(`${new Date().toISOString()} ${level} ${scope} ${message}${extra}`);
  };
  return { info: emit('info'), warn: emit('warn'), error: emit('error'), child: (s) => createLogger(`${scope}:${s}`, write) };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, child: () => silentLogger };
