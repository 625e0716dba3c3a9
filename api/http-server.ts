// The public API's http.Server. Node answers some requests itself, before Koa sees them, with a
// bare status and no body: a request line or headers its parser refuses (400, 431 for huge
// headers), an unknown method, CONNECT (connection dropped), an Expect other than 100-continue
// (417), an HTTP/1.1 request without Host (400). Here every one of them gets the spec 7.1 error
// body with an X-Request-Id like any other error. These answers are not signed: the request
// could not be read, so its API key is unknown.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './errors.ts';
import { newId } from '../pipeline/secrets.ts';

export function createApiServer(handle: http.RequestListener): http.Server {
  // Host is checked below instead (RFC 9112: 400 for an HTTP/1.1 request without one), in our format.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      const error = new ApiError('bad_request', 'an HTTP/1.1 request needs a Host header');
      res.shouldKeepAlive = false;
      res.writeHead(error.status, errorHeaders(error));
      res.end(errorBody(error));
      return;
    }
    handle(req, res);
  });
  // RFC 9110 lets a server ignore an expectation it does not understand (417 is a MAY): serve it.
  server.on('checkExpectation', handle);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A HEAD request is answered without a body, or the client would read it as the next response.
    const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    writeRaw(socket, parserError(err), !head);
  });
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    writeRaw(socket, new ApiError('method_not_allowed', 'CONNECT is not supported; this is not a proxy'));
  });
  return server;
}

function parserError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_INVALID_METHOD':
      return new ApiError('method_not_allowed', 'the request method is not supported');
    // 431 has no code in the spec's table: this is its 400 bad_request with the reason.
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('bad_request', `the request line and headers are larger than ${http.maxHeaderSize} bytes`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('bad_request', 'the request was not received in time');
    default:
      return new ApiError('bad_request', 'the request is not valid HTTP/1.1');
  }
}

function errorBody(error: ApiError): string {
  return JSON.stringify(error.body());
}

function errorHeaders(error: ApiError): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(errorBody(error))),
    'X-Request-Id': newId('req_'),
    Connection: 'close',
  };
}

/** An answer written straight on a socket that has no ServerResponse, then the socket is closed. */
function writeRaw(socket: Duplex, error: ApiError, withBody = true): void {
  // The peer may be gone already; a write error here must not become an uncaught 'error' event.
  socket.on('error', () => socket.destroy());
  const head = Object.entries(errorHeaders(error)).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status]}\r\n${head}\r\n${withBody ? errorBody(error) : ''}`);
}
