// Requests the server cannot read, answered as Go's HTTP server answers them: a bare text answer
// on a connection that is then closed (HTTP/1), a reset stream (HTTP/2). A method the listener
// cannot parse is the exception: Go reads any method, and the reference's routing refuses it
// with a 405 Status, so that is the answer here too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as http2 } from 'node:http2';
import type { Duplex } from 'node:stream';
import { methodNotAllowed } from '../errors.js';

const PLAIN_CLOSE = 'Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';

/** Go's answer to a request line or header it cannot parse: `400 Bad Request` (431 for headers over the limit). */
function rawAnswer(code: 400 | 431): string {
  const text = code === 400 ? '400 Bad Request' : '431 Request Header Fields Too Large';
  return `HTTP/1.1 ${text}\r\n${PLAIN_CLOSE}${text}`;
}

function rawMethodNotAllowed(): string {
  const body = JSON.stringify(methodNotAllowed().toStatus());
  return `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * The listener's `clientError`: what the HTTP/1 parser refused, answered as Go's server does.
 * Anything else (a slow client's timeout, a failed TLS handshake, a reset) gets no answer from
 * Go's server: the connection is closed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const parseError = err.code?.startsWith('HPE_') === true && err.code !== 'HPE_HEADERS_TIMEOUT';
  if (!socket.writable || !parseError) {
    socket.destroy();
    return;
  }
  const answer = err.code === 'HPE_INVALID_METHOD' ? rawMethodNotAllowed() : rawAnswer(err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400);
  socket.end(answer);
}

/** A request target Go's url parser refuses: `400 Bad Request` and the connection closed (HTTP/1), the stream reset (HTTP/2). */
export function refuseUnreadableRequest(req: IncomingMessage, res: ServerResponse): void {
  if (req.httpVersionMajor === 2) {
    (req as unknown as { stream: { close(code: number): void } }).stream.close(http2.NGHTTP2_PROTOCOL_ERROR);
    return;
  }
  res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  res.end('400 Bad Request');
}
