// The etcd client's unary calls over plain HTTP/2 (src/storage/etcd/unary.ts) against small HTTP/2
// servers standing in for a member's transport: an answer is read as one gRPC message, an error's
// status and percent-encoded message come back as grpc's code and details (from trailers, or from
// the headers of a "trailers-only" answer), a member that never answers fails at the deadline instead
// of hanging, and a refused connection says no connection was established (so writes may be retried).
import assert from 'node:assert/strict';
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { status } from '@grpc/grpc-js';
import { UnaryChannel } from '../../src/storage/etcd/unary.js';
import { freePort } from './etcd-process.js';

const LIMIT = { timeout: 20_000 };
const identity = (b: Buffer): Buffer => b;
/** One gRPC message: not compressed, its length, its bytes. */
function framed(body: Buffer): Buffer {
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  body.copy(frame, 5);
  return frame;
}

async function listen(server: Http2Server | Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function errorOf(err: unknown): { code: number; details: string } {
  return err as { code: number; details: string };
}

describe('etcd unary calls over HTTP/2', () => {
  const closers: Array<() => void> = [];
  after(() => {
    for (const close of closers) close();
  });

  /** An HTTP/2 server whose every request is answered by `answer`. */
  async function member(answer: (stream: ServerHttp2Stream, request: Buffer) => void): Promise<string> {
    const server = createHttp2Server();
    server.on('stream', (stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => answer(stream, Buffer.concat(chunks)));
    });
    const port = await listen(server);
    closers.push(() => server.close());
    return `127.0.0.1:${port}`;
  }

  it('sends one gRPC message and reads the answer; an error status comes back as code and details', LIMIT, async () => {
    const authority = await member((stream, request) => {
      const body = request.subarray(5);
      if (body.toString() === 'fail') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(status.OUT_OF_RANGE), 'grpc-message': encodeURIComponent('etcdserver: mvcc: required revision has been compacted') }));
        stream.end();
        return;
      }
      if (body.toString() === 'only') {
        // Trailers-only: the status in the headers, no body.
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(status.INVALID_ARGUMENT), 'grpc-message': 'bad%20key' }, { endStream: true });
        return;
      }
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(framed(Buffer.from(`echo:${body.toString()}`)));
    });
    const channel = new UnaryChannel(authority, undefined);
    closers.push(() => channel.close());
    const deadline = () => Date.now() + 5_000;
    const answer = await channel.call('/etcdserverpb.KV/Range', (s: string) => Buffer.from(s), (b) => b.toString(), 'hello', deadline());
    assert.equal(answer, 'echo:hello');
    await assert.rejects(channel.call('/etcdserverpb.KV/Range', (s: string) => Buffer.from(s), identity, 'fail', deadline()), (err) => {
      assert.equal(errorOf(err).code, status.OUT_OF_RANGE);
      assert.equal(errorOf(err).details, 'etcdserver: mvcc: required revision has been compacted');
      return true;
    });
    await assert.rejects(channel.call('/etcdserverpb.KV/Range', (s: string) => Buffer.from(s), identity, 'only', deadline()), (err) => {
      assert.equal(errorOf(err).code, status.INVALID_ARGUMENT);
      assert.equal(errorOf(err).details, 'bad key');
      return true;
    });
    // Calls in parallel share the session.
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => channel.call('/x', (s: string) => Buffer.from(s), (b) => b.toString(), `n${i}`, deadline())));
    assert.deepEqual(many, Array.from({ length: 20 }, (_, i) => `echo:n${i}`));
  });

  it('fails at the deadline when the member never answers, and says so', LIMIT, async () => {
    const authority = await member(() => {
      /* never answers */
    });
    const channel = new UnaryChannel(authority, undefined);
    closers.push(() => channel.close());
    const started = Date.now();
    await assert.rejects(channel.call('/x', (s: string) => Buffer.from(s), identity, 'x', Date.now() + 300), (err) => errorOf(err).code === status.DEADLINE_EXCEEDED);
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 3_000, `failed after ${took} ms`);
  });

  it('reports a refused connection as never established, and connects once the member listens', LIMIT, async () => {
    const port = await freePort();
    const channel = new UnaryChannel(`127.0.0.1:${port}`, undefined);
    closers.push(() => channel.close());
    await assert.rejects(channel.call('/x', (s: string) => Buffer.from(s), identity, 'x', Date.now() + 2_000), (err) => {
      assert.equal(errorOf(err).code, status.UNAVAILABLE);
      assert.match(errorOf(err).details, /No connection established/);
      return true;
    });
    // A TCP server that drops every connection: the call fails as unavailable, not as a hang.
    const sockets = new Set<Socket>();
    const tcp = createTcpServer((s) => {
      sockets.add(s);
      s.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', resolve));
    closers.push(() => tcp.close());
    await assert.rejects(channel.call('/x', (s: string) => Buffer.from(s), identity, 'x', Date.now() + 2_000), (err) => errorOf(err).code === status.UNAVAILABLE);
  });
});
