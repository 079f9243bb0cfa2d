// WatchOutput against a fake response whose client reads when the test says: a client that keeps
// up (or is slow a moment, then catches up) is never cut off; one that stops reading, or reads
// slower than events come, is, after stallMs; end() writes what waits, then ends.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { constants } from 'node:http2';
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { WatchOutput, type WatchOutputLimits } from '../../src/endpoints/watch-output.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One turn of the event loop: what pushes queued is written (in the output's write turn). */
const turn = () => new Promise((r) => setImmediate(r));

/** A response with a high-water mark; what is written stays in `buffered` until `read()`. */
class FakeResponse extends EventEmitter {
  buffered: string[] = [];
  received: string[] = [];
  writableEnded = false;
  destroyed = false;
  private refused = false;

  constructor(private readonly highWaterMark = 3) {
    super();
  }

  get writableLength(): number {
    return this.buffered.reduce((n, s) => n + s.length, 0);
  }

  write(chunk: Buffer): boolean {
    this.buffered.push(chunk.toString());
    const ok = this.buffered.length < this.highWaterMark;
    if (!ok) this.refused = true;
    return ok;
  }

  end(): this {
    this.writableEnded = true;
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    return this;
  }

  /** The client takes everything sent so far ('drain' when a write was refused). */
  read(): void {
    this.received.push(...this.buffered);
    this.buffered = [];
    if (this.refused) {
      this.refused = false;
      this.emit('drain');
    }
  }
}

/** The same, as an HTTP/2 compatibility response: it has a stream, cut off by close(code). */
class FakeHttp2Response extends FakeResponse {
  readonly stream = { closedWith: undefined as number | undefined, close: (code: number) => void (this.stream.closedWith = code) };
}

const LIMITS: WatchOutputLimits = { inFlightBytes: 1024, inFlightEvents: 4, maxQueued: 10, stallMs: 50 };

function output(res: FakeResponse, limits = LIMITS): { out: WatchOutput<number>; cuts: () => number } {
  let cuts = 0;
  const out = new WatchOutput<number>(res as unknown as ServerResponse, (n) => Buffer.from(`${n}\n`), () => void cuts++, limits);
  return { out, cuts: () => cuts };
}

const numbers = (lines: string[]) => lines.map((l) => Number(l.trim()));
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('WatchOutput', { timeout: 10_000 }, () => {
  it('a client that keeps up gets every event in order and is never cut off', async () => {
    const res = new FakeResponse(16);
    const { out, cuts } = output(res);
    for (let i = 0; i < 500; i++) {
      out.push(i);
      if (i % 5 === 4) {
        await turn();
        res.read();
      }
      if (i % 50 === 49) await sleep(5);
    }
    await sleep(LIMITS.stallMs * 3);
    res.read();
    assert.deepEqual(numbers(res.received), upTo(500));
    assert.equal(cuts(), 0);
    assert.equal(res.destroyed, false);
  });

  it('a client slow for a moment (a burst it reads behind, with pauses shorter than stallMs) is not cut off', async () => {
    const res = new FakeResponse(50);
    const { out, cuts } = output(res);
    for (let i = 0; i < 200; i++) out.push(i);
    assert.ok(out.waiting > LIMITS.maxQueued);
    // It reads what is sent every 30 ms (under stallMs), so the queue shrinks a step at a time.
    while (out.waiting > 0) {
      await sleep(LIMITS.stallMs * 0.6);
      res.read();
    }
    res.read();
    await sleep(LIMITS.stallMs * 2);
    assert.deepEqual(numbers(res.received), upTo(200));
    assert.equal(cuts(), 0);
    assert.equal(res.destroyed, false);
  });

  it('a client that stops reading is cut off after stallMs: its events stop, its connection closes', async () => {
    const res = new FakeResponse();
    const { out, cuts } = output(res);
    for (let i = 0; i < 100; i++) out.push(i);
    await turn();
    assert.equal(cuts(), 0);
    await sleep(LIMITS.stallMs / 2);
    assert.equal(cuts(), 0, 'not before stallMs');
    await sleep(LIMITS.stallMs * 2);
    assert.equal(cuts(), 1);
    assert.equal(res.destroyed, true);
    assert.equal(out.waiting, 0, 'what waited is dropped');
    out.push(100);
    assert.ok(res.buffered.length <= 3, 'nothing more is written');
  });

  it('a stalled HTTP/2 stream is cancelled, not its session', async () => {
    const res = new FakeHttp2Response(2);
    const { out, cuts } = output(res);
    for (let i = 0; i < 100; i++) out.push(i);
    await turn();
    // An HTTP/2 response takes more than its high-water mark before the watcher waits.
    assert.equal(res.buffered.length, LIMITS.inFlightEvents + 1);
    await sleep(LIMITS.stallMs * 3);
    assert.equal(cuts(), 1);
    assert.equal(res.stream.closedWith, constants.NGHTTP2_CANCEL);
    assert.equal(res.destroyed, false);
  });

  it('a client that reads, but slower than events come, is cut off after stallMs', async () => {
    const res = new FakeResponse();
    const { out, cuts } = output(res);
    let i = 0;
    const started = performance.now();
    while (cuts() === 0 && performance.now() - started < 1000) {
      for (let k = 0; k < 20; k++) out.push(i++);
      res.read();
      await sleep(10);
    }
    assert.equal(cuts(), 1);
    const after = performance.now() - started;
    assert.ok(after >= LIMITS.stallMs && after < LIMITS.stallMs * 5, `cut after ${after.toFixed(0)} ms`);
  });

  it('end() writes every waiting event, then ends the response', async () => {
    const res = new FakeResponse();
    const { out, cuts } = output(res);
    for (let i = 0; i < 8; i++) out.push(i);
    out.end();
    assert.equal(res.writableEnded, false, 'not while events wait');
    out.push(99);
    while (!res.writableEnded) {
      res.read();
      await sleep(1);
    }
    res.read();
    assert.deepEqual(numbers(res.received), upTo(8));
    assert.equal(cuts(), 0);
  });

  it('end() to a client that stopped reading cuts it off after stallMs, however few events wait', async () => {
    const res = new FakeResponse();
    const { out, cuts } = output(res);
    for (let i = 0; i < 8; i++) out.push(i);
    out.end();
    await sleep(LIMITS.stallMs * 3);
    assert.equal(cuts(), 1);
    assert.equal(res.destroyed, true);
    assert.equal(res.writableEnded, false);
  });

  it('an event fanned out to many watchers is written in turns: other work runs before all are written', async () => {
    // Each encoding takes 1 ms (as encrypting an event for a connection may): 50 of them in one go would hold the loop 50 ms.
    const slowEncode = (n: number) => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      return Buffer.from(`${n}\n`);
    };
    const responses = Array.from({ length: 50 }, () => new FakeResponse(16));
    for (const res of responses) new WatchOutput<number>(res as unknown as ServerResponse, slowEncode, () => undefined, LIMITS).push(1);
    const writtenMeanwhile = await new Promise<number>((r) => setImmediate(() => r(responses.filter((res) => res.buffered.length).length)));
    assert.ok(writtenMeanwhile > 0 && writtenMeanwhile < 25, `${writtenMeanwhile} of 50 written before other work ran`);
    const written = () => responses.filter((res) => res.buffered.length === 1).length;
    for (let i = 0; i < 100 && written() < 50; i++) await sleep(50);
    assert.equal(written(), 50);
  });

  it('over real HTTP/1.1 connections whose writes are slow, a fan-out is written in turns: a request is answered while it goes on, and every watcher gets every event once, in order', async () => {
    // node:http writes a response's chunks on the next tick (it corks the socket): the cost of
    // writing (encrypting, on TLS) must fall inside the turn that times it, not after the turn.
    const watchers = 100;
    const events = 3;
    const outputs: Array<WatchOutput<number>> = [];
    let writes = 0;
    const server = createServer((req, res) => {
      if (req.url !== '/watch') {
        res.end(String(writes));
        return;
      }
      const socket = res.socket! as unknown as { _writev?: (...a: unknown[]) => void; _write: (...a: unknown[]) => void };
      // Each write to a watcher's connection takes 1 ms, as encrypting a 10 KiB event for it may.
      for (const name of ['_write', '_writev'] as const) {
        const original = socket[name]!;
        socket[name] = function (this: unknown, ...args: unknown[]) {
          writes++;
          const until = performance.now() + 1;
          while (performance.now() < until);
          return original.apply(this, args);
        };
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      outputs.push(new WatchOutput<number>(res, (n) => Buffer.from(`${n}\n`), () => undefined, { ...LIMITS, maxQueued: 1000, stallMs: 10_000 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: watchers + 1 });
    const get = (path: string, onBody?: (text: string) => void) => new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (t: string) => {
          body += t;
          onBody?.(body);
        });
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    try {
      const bodies = Array.from({ length: watchers }, () => '');
      const complete = Array.from({ length: watchers }, () => false);
      const watched = Array.from({ length: watchers }, (_, i) => get('/watch', (body) => {
        bodies[i] = body;
        complete[i] = body.split('\n').length > events;
      }));
      for (let i = 0; i < 200 && outputs.length < watchers; i++) await sleep(10);
      assert.equal(outputs.length, watchers);
      await sleep(50);
      const before = writes;
      const started = performance.now();
      for (let n = 0; n < events; n++) for (const out of outputs) out.push(n);
      // Asked while the fan-out (about 100 writes of 1 ms) is going on: answered before its end.
      const writtenWhenAnswered = Number(await get('/next')) - before;
      const answeredMs = performance.now() - started;
      assert.ok(writtenWhenAnswered < watchers * 0.75, `the request was answered after ${writtenWhenAnswered} of ${watchers} watchers' writes (${answeredMs.toFixed(0)} ms)`);
      for (let i = 0; i < 300 && !complete.every(Boolean); i++) await sleep(10);
      for (const out of outputs) out.end();
      const all = await Promise.all(watched);
      for (const body of all) assert.deepEqual(numbers(body.split('\n').filter(Boolean)), upTo(events));
    } finally {
      agent.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('watchers that stalled together are cut off in turns: other work runs between', async () => {
    // Closing a connection costs about as much as a write: 50 of 1 ms each in one go would hold the loop 50 ms.
    class SlowClose extends FakeResponse {
      override destroy(): this {
        const until = performance.now() + 1;
        while (performance.now() < until);
        return super.destroy();
      }
    }
    const responses = Array.from({ length: 50 }, () => new SlowClose(3));
    const outputs = responses.map((res) => new WatchOutput<number>(res as unknown as ServerResponse, (n) => Buffer.from(`${n}\n`), () => undefined, LIMITS));
    // In one go: every watcher goes over the limit, and its check is set, in the same tick.
    for (let i = 0; i < 20; i++) for (const out of outputs) out.push(i);
    const cut = () => responses.filter((res) => res.destroyed).length;
    // Every watcher's check is due at the same time: count how many are cut before another immediate runs.
    const until = performance.now() + 2000;
    while (cut() === 0 && performance.now() < until) await new Promise((r) => setImmediate(r));
    const cutAtFirst = cut();
    assert.ok(cutAtFirst > 0 && cutAtFirst < 10, `${cutAtFirst} of 50 cut off before other work ran`);
    for (let i = 0; i < 100 && cut() < 50; i++) await sleep(10);
    assert.equal(cut(), 50);
  });

  it('stop() (the client is gone) drops what waits and writes nothing more', async () => {
    const res = new FakeResponse();
    const { out } = output(res);
    for (let i = 0; i < 20; i++) out.push(i);
    await turn();
    out.stop();
    assert.equal(out.waiting, 0);
    res.read();
    out.push(20);
    await turn();
    res.read();
    assert.deepEqual(numbers(res.received), upTo(3));
  });

  it('over a real HTTP/1.1 connection: every event arrives whole and in order, through a client that pauses, and the kept-alive connection serves the next request', async () => {
    const events = 1000;
    const pad = 'p'.repeat(10 * 1024);
    const limits: WatchOutputLimits = { ...LIMITS, maxQueued: 10_000, stallMs: 5_000 };
    const server = createServer((req, res) => {
      if (req.url !== '/watch') {
        res.end('next');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      const out = new WatchOutput<number>(res, (n) => Buffer.from(`{"n":${n},"pad":"${pad}"}\n`), () => undefined, limits);
      for (let i = 0; i < events; i++) out.push(i);
      out.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const get = (path: string, pauseMs: number) => new Promise<{ body: string; socket: unknown }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          // Reads nothing for a while: the server's writes are refused, then resume on 'drain'.
          res.pause();
          setTimeout(() => {
            res.on('data', (t: string) => (body += t));
            res.on('end', () => resolve({ body, socket: req.socket }));
            res.resume();
          }, pauseMs);
        });
        req.on('error', reject);
        req.end();
      });
      const watched = await get('/watch', 300);
      const lines = watched.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { n: number; pad: string });
      assert.deepEqual(lines.map((l) => l.n), upTo(events));
      assert.ok(lines.every((l) => l.pad === pad));
      const next = await get('/next', 0);
      assert.equal(next.body, 'next');
      assert.equal(next.socket, watched.socket, 'the same connection');
    } finally {
      agent.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('to an HTTP/1.0 client (no chunked encoding) the events go out as the bare body, ended by the close', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      const out = new WatchOutput<number>(res, (n) => Buffer.from(`${n}\n`), () => undefined, LIMITS);
      for (let i = 0; i < 5; i++) out.push(i);
      out.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end('GET /watch HTTP/1.0\r\nHost: x\r\n\r\n'));
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (t: string) => (text += t));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 200 OK/);
      assert.doesNotMatch(head!, /transfer-encoding/i);
      assert.equal(body, '0\n1\n2\n3\n4\n');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
