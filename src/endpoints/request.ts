// Reading request bodies (bounded) and writing responses in the negotiated serialization.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants as http2, type Http2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { auditOf } from '../audit/record.js';
import { MAX_BODY_BYTES } from '../encoding/decode.js';
import { MAX_YAML_DEPTH, valueDepth } from '../encoding/depth.js';
import { bodyLength, joinBody, ProtobufBody, type Body } from '../encoding/lists.js';
import { protobufObject } from '../encoding/derived.js';
import { yamlLibrary } from '../encoding/yaml-library.js';
import { requestEntityTooLarge, StatusError, internalError } from '../errors.js';
import { contentTypeOf, ProtobufNotAvailable, type Format } from './negotiation.js';
import { SENT_LENGTH } from './response.js';

/**
 * The request's body, read to its end. Read by its events rather than an async iterator, which
 * costs a turn per chunk and destroys the stream at its end; a request that ends early (the
 * client gone, or an error) rejects, as the iterator's premature close does.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.reject(refuseRestOfBody(req));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done();
        reject(refuseRestOfBody(req));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const onClose = (): void => {
      done();
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    // Read already: nothing more comes (as the iterator of an ended stream yields nothing).
    if (req.readableEnded) {
      resolve(Buffer.alloc(0));
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * 413 for a body over the limit. The rest of it is never waited for: the connection closes after
 * the answer (HTTP/1, as Go's server closes one whose handler left a large body unread), or the
 * stream is reset once answered (HTTP/2), so a client that stops sending never hangs on it. Either
 * way the client must be able to read the answer while it is still sending: see lingeringClose and
 * resetOnceAnswered.
 */
function refuseRestOfBody(req: IncomingMessage): StatusError {
  const message = `Request entity too large: limit is ${MAX_BODY_BYTES}`;
  req.resume();
  if (req.httpVersionMajor !== 2) {
    lingeringClose(req.socket);
    return new StatusError(413, 'RequestEntityTooLarge', message, undefined, { Connection: 'close' });
  }
  resetOnceAnswered((req as unknown as { stream: Http2Stream }).stream);
  return requestEntityTooLarge(message);
}

/** How long a connection closed with its request unread is still read from (Go's rstAvoidanceDelay). */
const LINGER_MS = 500;

/**
 * Makes the close node:http does after a `Connection: close` answer a lingering one, as Go's
 * server does: its FIN is sent, what the client still sends is read and dropped for LINGER_MS, and
 * only then is the socket closed. Closed at once with unread bytes, the kernel answers with a
 * reset, and a client still writing its body (kubectl, node:https) loses the 413 it was sent.
 */
function lingeringClose(socket: Socket): void {
  socket.destroySoon = function lingering(this: Socket): void {
    this.on('data', ignore);
    this.resume();
    this.end();
    setTimeout(() => this.destroy(), LINGER_MS).unref();
  };
}

function ignore(): void {}

/**
 * Resets the stream with NO_ERROR, which asks the client to stop sending (RFC 9113 §8.1), once the
 * answer's last frame has gone out: reset as soon as the answer is handed over, nghttp2 sends the
 * RST_STREAM ahead of the answer's queued DATA, which it then drops, and the client (Go's) reports
 * a broken stream instead of the 413.
 */
function resetOnceAnswered(stream: Http2Stream): void {
  const givenUpAt = Date.now() + LINGER_MS;
  const resetWhenSent = (): void => {
    if (stream.destroyed || stream.closed) return;
    const state = stream.state.state;
    const sent = state === http2.NGHTTP2_STREAM_STATE_HALF_CLOSED_LOCAL || state === http2.NGHTTP2_STREAM_STATE_CLOSED;
    if (sent || Date.now() >= givenUpAt) stream.close(http2.NGHTTP2_NO_ERROR);
    else setTimeout(resetWhenSent, 1);
  };
  stream.once('finish', resetWhenSent);
}

/** What Go's strconv.ParseBool reads as true; every other value is false or an error (false). */
const GO_TRUE: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * The reference indents JSON when ?pretty= is a true value to Go's strconv.ParseBool (1, t, true,
 * True, TRUE) and, when pretty is absent or empty, for user agents of command-line tools and browsers.
 */
export function wantsPretty(req: IncomingMessage, query: URLSearchParams): boolean {
  const pretty = query.get('pretty');
  if (pretty) return GO_TRUE.has(pretty);
  const ua = req.headers['user-agent'] ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

export interface Output {
  format: Format;
  pretty: boolean;
}

function toProtobuf(body: Body): Buffer | Buffer[] {
  if (body instanceof ProtobufBody) return body.chunks;
  // A stored version's message is made once and kept with it (encoding/derived.ts).
  return protobufObject(Array.isArray(body) ? Buffer.concat(body) : body);
}

/**
 * YAML as Go's encoder writes it: keys sorted, sequences not indented under their key, strings
 * that YAML 1.1 would read as something else (times, numbers, yes/no) quoted — but the
 * managedFields key "." plain.
 */
export function goYaml(value: unknown): string {
  return yamlLibrary().stringify(value, { sortMapEntries: true, indentSeq: false, version: '1.1' }).replace(/^(\s*)"\.":/gm, '$1.:');
}

/** JSON in the output's serialization: as it is, indented, YAML (keys sorted, as Go's) or Protobuf. */
export function serialize(body: Body, out: Output): Body {
  if (out.format === 'protobuf') return toProtobuf(body);
  if (out.format === 'yaml') {
    const value: unknown = JSON.parse(joinBody(body).toString('utf8'));
    // The YAML writer recurses, and runs out of stack a little past 800 levels.
    if (valueDepth(value) > MAX_YAML_DEPTH) throw new Error(`cannot write YAML nested deeper than ${MAX_YAML_DEPTH} levels`);
    return Buffer.from(goYaml(value));
  }
  if (out.pretty) return Buffer.from(JSON.stringify(JSON.parse(joinBody(body).toString('utf8')), null, 2) + '\n');
  return body;
}

/** How many bytes of body sendBytes wrote to `res` (0 when it wrote none). */
export function sentBodyLength(res: ServerResponse): number {
  return (res as { [SENT_LENGTH]?: number })[SENT_LENGTH] ?? 0;
}

export function sendBytes(res: ServerResponse, status: number, body: Body, out: Output, headers: Record<string, string | string[]> = {}): void {
  // The audit event sees the answer as JSON, whatever it goes out as.
  if (!(body instanceof ProtobufBody)) auditOf(res)?.logResponseJson(body);
  const payload = serialize(body, out);
  const length = bodyLength(payload);
  (res as { [SENT_LENGTH]?: number })[SENT_LENGTH] = length;
  res.writeHead(status, { ...headers, 'Content-Type': contentTypeOf({ format: out.format }), 'Content-Length': length });
  if (!Array.isArray(payload)) {
    res.end(joinBody(payload));
    return;
  }
  writeChunks(res, payload);
}

/**
 * How much is written before waiting for the connection to take it. Waiting at each write's
 * high-water mark (16 KiB) costs a turn of the event loop per few chunks; a megabyte keeps memory
 * flat at a few turns per list, and a list of 10,000 items costs less CPU written in these
 * stretches than queued whole (the queue the socket walks stays short).
 */
const STRETCH_BYTES = 1024 * 1024;

/**
 * A body in chunks (a list: pieces of the items' kept bytes, nothing copied), written as the
 * connection takes them: corked stretches of about a megabyte, the next once the last chunk of the
 * one before has been handed to the connection (its write's callback: called whether the response
 * is already on its socket or still waits behind the one before it, and with an error when the
 * connection has gone). Other requests run between the stretches.
 */
function writeChunks(res: ServerResponse, chunks: readonly Buffer[]): void {
  let next = 0;
  const writeStretch = (err?: Error | null): void => {
    if (err || res.destroyed) return;
    res.cork();
    let size = 0;
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      size += chunk.length;
      if (size >= STRETCH_BYTES && next < chunks.length) {
        res.write(chunk, writeStretch);
        res.uncork();
        return;
      }
      res.write(chunk);
    }
    res.end();
    res.uncork();
  };
  writeStretch();
}

export function sendStatusError(res: ServerResponse, err: unknown, out: Output = { format: 'json', pretty: false }): void {
  const status = err instanceof StatusError ? err : internalError(err instanceof Error ? err.message : String(err));
  if (!(err instanceof StatusError)) console.error('internal error:', err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(JSON.stringify(status.toStatus()));
  if (status instanceof ProtobufNotAvailable) return sendBytes(res, status.code, body, { format: 'protobuf', pretty: false }, status.headers);
  // The reference indents its 406 answer (it cannot negotiate a serializer for it).
  const pretty = status.code === 406 ? true : out.pretty;
  // A 406 cannot use what was asked for; it answers in JSON.
  sendBytes(res, status.code, body, { format: status.code === 406 ? 'json' : out.format, pretty }, status.headers);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}
