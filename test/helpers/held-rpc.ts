// An RPC endpoint that does not answer until told to: a job that reads the chain holds its slot
// (and its chain's lock) for as long as a test needs.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An RPC endpoint that holds every request (its path recorded) until released, then answers HTTP 404. */
export async function heldRpcServer(cleanups: (() => Promise<unknown>)[]) {
  const held: { path: string; answer: () => void }[] = [];
  let released = false;
  const answer = (res: ServerResponse) => () => void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  const rpcServer = createServer((req, res) => (released ? answer(res)() : void held.push({ path: req.url ?? '', answer: answer(res) })));
  await new Promise<void>((resolve) => rpcServer.listen(0, '127.0.0.1', resolve));
  const release = () => {
    released = true;
    for (const h of held.splice(0)) h.answer();
  };
  cleanups.push(() => new Promise((resolve) => (release(), rpcServer.closeAllConnections(), rpcServer.close(resolve))));
  return { url: `http://127.0.0.1:${(rpcServer.address() as AddressInfo).port}`, held, release };
}
