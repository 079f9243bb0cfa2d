// Requests that ask to switch protocols (`Connection: Upgrade`, as SPDY and WebSocket streams
// do). Node hands them over as a bare socket rather than a response; this gives them a response
// on that socket, so that they go through the same filters and routes as every request (and a
// refusal is an ordinary HTTP answer), and lets a route that can switch (the aggregator's proxy)
// take the socket over once it has answered 101.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AnswerResponse } from './response.js';

export interface UpgradedConnection {
  /** The client's connection, to carry the new protocol once a 101 has been written. */
  readonly socket: Duplex;
  /** Bytes the client sent after its request's headers. */
  readonly head: Buffer;
}

const connections = new WeakMap<ServerResponse, UpgradedConnection>();

/**
 * A response written on the upgrade request's socket. Anything but a 101 ends the connection once
 * written (the client asked to leave HTTP: nothing more is read from it as HTTP).
 */
export function upgradeResponse(req: IncomingMessage, socket: Duplex, head: Buffer): ServerResponse {
  // Node no longer watches this socket: an error on it (the client went away) must not go unheard.
  socket.on('error', () => socket.destroy());
  const res = new AnswerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as never);
  res.once('finish', () => {
    if (res.statusCode !== 101) socket.end();
  });
  connections.set(res, { socket, head });
  return res;
}

/** The connection an upgrade request came on; undefined for an ordinary request. */
export function upgradedConnection(res: ServerResponse): UpgradedConnection | undefined {
  return connections.get(res);
}
