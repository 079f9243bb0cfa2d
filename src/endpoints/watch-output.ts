// A watcher's way out to its client. The response is given a bounded amount at a time; the rest
// waits in a queue of the watcher's own, encoded only when written, so a client that does not read
// costs a reference per waiting event, not copies held by its connection. What is in flight
// differs by protocol: on an HTTP/1.1 connection it is copied (encrypted) for that connection, so
// only up to the response's high-water mark; on an HTTP/2 stream it is references that go out as
// the stream's window opens, and the stream sends only once per turn of the event loop, so more
// (a healthy watcher is not held to one high-water mark per turn).
//
// Writing is done in turns (turns.ts), a few milliseconds each, so that fanning one event out to
// many watchers leaves room for other requests. On HTTP/1.1 a turn does the writing itself:
// node:http only corks a response's socket and writes (encrypts) on the next tick, which would put
// every write of a turn after it, in one go; a watcher's flush corks its socket and uncorks it at
// the end, so its writes go out as one writev inside the turn that timed them. Better still, once
// its head is out, an HTTP/1.1 response in chunked encoding is written around node:http: each
// event's chunk (size line, frame, CRLF) is made once for every watcher sent it and written to the
// connection itself, one write for one event — node:http would frame it anew for each watcher in
// three pieces, each through the stream's buffering (a third of the CPU of a delivery).
//
// A watcher is cut off, as the reference's watch cache closes a watcher whose buffer stays full
// (the client re-lists or resumes from its last version), when more than `maxQueued` events wait
// and its queue has not shrunk for `stallMs`: its client stopped reading, or reads slower than
// events come. Not only "took nothing": a client that stopped reading on a local connection still
// takes megabytes into the kernel's socket buffers before its writes stop, each encrypted for it.
// A client that reads, if slowly for a moment, catches up and is never cut. This works per
// response: a stalled HTTP/2 stream is cut off while the other streams of its session go on.
import type { ServerResponse } from 'node:http';
import { constants } from 'node:http2';
import { ChunkedFifo } from './chunked-fifo.js';
import { turns, type TurnTask } from '../turns.js';

export interface WatchOutputLimits {
  /** What an HTTP/2 response may hold, once past its high-water mark, before the watcher waits for it to drain. */
  inFlightBytes: number;
  inFlightEvents: number;
  /** Events a watcher may have waiting before it must show that its client keeps up. */
  maxQueued: number;
  /** How long a watcher with more than `maxQueued` waiting may go without its queue shrinking. */
  stallMs: number;
}

export const WATCH_OUTPUT_LIMITS: WatchOutputLimits = { inFlightBytes: 128 * 1024, inFlightEvents: 32, maxQueued: 100, stallMs: 2000 };

/** What is used of an HTTP/1.1 response's connection. */
interface Connection {
  cork(): void;
  uncork(): void;
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
  readonly writableLength: number;
}

/** What is used of a response: node:http's ServerResponse and HTTP/2's compatibility response alike. */
type Response = Pick<ServerResponse, 'write' | 'end' | 'destroy' | 'on' | 'writableEnded' | 'writableLength'> & Partial<Pick<ServerResponse, 'flushHeaders'>> & {
  /** HTTP/1.1: the connection (an HTTP/2 response's is its session's, and is not corked). */
  readonly socket?: Connection | null;
  /** node:http: whether the body goes in chunks (an HTTP/1.1 client), known once the head is made. */
  readonly chunkedEncoding?: boolean;
  readonly headersSent?: boolean;
};

/** Each frame's HTTP/1.1 chunk, made once for all the watchers it is written to (frames are shared: encoding/derived.ts). */
const chunks = new WeakMap<Buffer, Buffer>();

function chunkOf(frame: Buffer): Buffer {
  let chunk = chunks.get(frame);
  if (chunk === undefined) {
    const size = frame.length.toString(16);
    chunk = Buffer.allocUnsafe(size.length + 2 + frame.length + 2);
    let at = chunk.write(size, 0, 'latin1');
    at += chunk.write('\r\n', at, 'latin1');
    at += frame.copy(chunk, at);
    chunk.write('\r\n', at, 'latin1');
    chunks.set(frame, chunk);
  }
  return chunk;
}

export class WatchOutput<E> implements TurnTask {
  private readonly queue = new ChunkedFifo<E>();
  /** Writes the response refused (over its high-water mark) since it last drained. */
  private overMark = 0;
  private waitingForDrain = false;
  /** An HTTP/2 stream's response (see above). */
  private readonly http2: boolean;
  private check: NodeJS.Timeout | undefined;
  /** What the queue must be under at the next check: its peak in the first period, then its size at the last check. */
  private mark = 0;
  /** In the first period over the limit (a burst is still coming in). */
  private burst = false;
  private ending = false;
  private closed = false;
  /** The cut-off, in a turn: a thousand watchers that stalled together are found out together, and closing each costs about a write. */
  private readonly cutting: TurnTask = { inTurns: false, flush: () => void (this.closed || this.cut()) };
  /**
   * The connection written to directly, in chunks made here (null: through the response), decided
   * at the first write: once the head is on the connection and nothing of the response waits before it.
   */
  private direct: Connection | null | undefined;
  private readonly drained = (): void => {
    this.overMark = 0;
    this.waitingForDrain = false;
    if (this.waiting > 0) turns.add(this);
  };
  /** Whether it waits for a turn (the turns' own mark). */
  inTurns = false;

  constructor(
    private readonly res: Response,
    private readonly encode: (e: E) => Buffer,
    /** Called when the watcher is cut off: its events must stop coming. */
    private readonly onCut: () => void,
    private readonly limits: WatchOutputLimits = WATCH_OUTPUT_LIMITS,
    /** Called before anything is written (sends the response head). */
    private readonly beforeWrite: () => void = () => undefined,
  ) {
    this.http2 = 'stream' in res;
    res.on('drain', this.drained);
  }

  /** Events waiting for the response to take them. */
  get waiting(): number {
    return this.queue.size;
  }

  push(e: E): void {
    if (this.closed || this.ending) return;
    this.queue.push(e);
    if (!this.waitingForDrain) turns.add(this);
    if (this.check) {
      if (this.burst) this.mark = Math.max(this.mark, this.waiting);
    } else if (this.waiting > this.limits.maxQueued) {
      this.burst = true;
      this.mark = this.waiting;
      this.watchProgress();
    }
  }

  /** Ends the response once every waiting event is written (a client that stops taking them is cut off). */
  end(): void {
    if (this.closed || this.ending) return;
    this.ending = true;
    this.flush();
    // The end waits for the client whatever the queue's size: it must keep taking events.
    if (!this.closed && this.waiting > 0 && !this.check) {
      this.burst = false;
      this.mark = this.waiting;
      this.watchProgress();
    }
  }

  /** The client is gone: drop what waits. */
  stop(): void {
    this.closed = true;
    this.drop();
  }

  private write(e: E): void {
    this.beforeWrite();
    const direct = this.direct === undefined ? this.directConnection() : this.direct;
    if (direct) {
      if (direct.write(chunkOf(this.encode(e)))) return;
      this.waitingForDrain = true;
      direct.once('drain', this.drained);
      return;
    }
    if (this.res.write(this.encode(e))) return;
    // Refused writes are still taken; a 'drain' follows once the response has sent them all.
    this.overMark++;
    if (!this.http2 || this.overMark >= this.limits.inFlightEvents || this.res.writableLength >= this.limits.inFlightBytes) this.waitingForDrain = true;
  }

  private directConnection(): Connection | null {
    const res = this.res;
    const socket = res.socket;
    if (this.http2 || !socket || res.headersSent !== true || res.chunkedEncoding !== true) return (this.direct = null);
    // A head made may still wait for the first write: flushed, it is on the connection, or, with
    // the connection not yet the response's, waiting in the response (which writableLength counts).
    res.flushHeaders?.();
    return (this.direct = res.writableLength === socket.writableLength ? socket : null);
  }

  /** Writes what waits, as far as the response takes it (in a turn, or when ending). */
  flush(): void {
    const socket = this.http2 ? undefined : this.res.socket;
    // Several writes are corked into one writev; one written directly needs no cork.
    if (socket && !this.closed && !this.waitingForDrain && this.queue.size > (this.direct ? 1 : 0)) {
      socket.cork();
      try {
        this.writeWaiting();
      } finally {
        socket.uncork();
      }
    } else {
      this.writeWaiting();
    }
    // Caught up: a later burst starts its own count.
    if (this.waiting <= this.limits.maxQueued && !this.ending) this.clearCheck();
    if (this.ending && !this.closed && this.waiting === 0) this.finish();
  }

  private writeWaiting(): void {
    while (!this.closed && !this.waitingForDrain && this.queue.size > 0) this.write(this.queue.shift()!);
  }

  /**
   * Looks again after `stallMs` (and after the I/O that was due meanwhile, so that a busy event
   * loop is not taken for a stalled client): still over the limit and not catching up, the watcher
   * is cut off. Catching up is being under the queue's peak after the first period (a burst comes
   * in at once: what counts is that the client works it down), then under the size at the last
   * check, so that a queue that stays over the limit shrinks at every check.
   */
  private watchProgress(): void {
    this.check = setTimeout(() => setImmediate(() => {
      this.check = undefined;
      if (this.closed || (this.waiting <= this.limits.maxQueued && !this.ending)) return;
      if (this.waiting >= this.mark) {
        turns.add(this.cutting);
        return;
      }
      this.burst = false;
      this.mark = this.waiting;
      this.watchProgress();
    }), this.limits.stallMs);
  }

  /**
   * Ends a watcher that does not keep up. Not with the end of the response, which would wait
   * behind what the client does not read: an HTTP/2 stream is reset as cancelled, an HTTP/1.1
   * response closes its connection (what the kernel holds still goes out, then the end: the
   * client sees the stream cut short).
   */
  private cut(): void {
    this.closed = true;
    this.drop();
    this.onCut();
    if (this.http2) (this.res as unknown as { stream: { close(code: number): void } }).stream.close(constants.NGHTTP2_CANCEL);
    else this.res.destroy();
  }

  private finish(): void {
    this.closed = true;
    this.clearCheck();
    if (!this.res.writableEnded) {
      this.beforeWrite();
      this.res.end();
    }
  }

  private drop(): void {
    this.queue.clear();
    turns.delete(this);
    this.clearCheck();
  }

  private clearCheck(): void {
    if (this.check) clearTimeout(this.check);
    this.check = undefined;
  }
}
