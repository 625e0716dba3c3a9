// A listen that failed because its port is taken, said so a person can act on it: which port, and
// what to stop or which setting moves it (Node's and ganache's own messages say neither). Any other
// error is returned as it is.
export function explainPortInUse(err: unknown, port: number, host: string, advice: string): unknown {
  if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') return err;
  return new Error(`port ${port} on ${host} is already in use: ${advice}`);
}
