// The log backend's bounded queue: each line is encoded (UTF-8) into a large buffer the moment it
// is taken, and the buffers are what waits for the writer. Holding the lines as strings until
// their write (10 ms and more) made the garbage collector copy and promote every one of them,
// which cost a request about as much as building its events; encoded, they die young. The
// scheduling (drops, gathering, one write at a time) is BatchingQueue's, as every backend's.
import { BatchingQueue } from './backend.js';

/** Lines encoded one after another; `ends[i]` is where line i ends. */
export interface EncodedLines {
  readonly buffer: Buffer;
  readonly ends: ArrayLike<number> & Iterable<number>;
}

/**
 * A buffer of lines and where each ends. The ends are kept in a typed array reused with the chunk:
 * a fresh array per write lived as long as a chunk fills (longer than a young generation's turn),
 * so each was copied and promoted, and the old generation grew by some 0.3 MB/s under audited load.
 */
interface Chunk {
  buffer: Buffer;
  bytes: number;
  ends: Uint32Array;
  lines: number;
}

export interface EncodedQueueOptions {
  /** Lines held at most before new ones are dropped. */
  bufferSize: number;
  /** Lines that, once held, are written without waiting for more. */
  batchLines: number;
  /** How long the first line of a quiet spell waits for others to go with it. */
  gatherMs: number;
  /** How the warnings name the backend. */
  name: string;
}

const CHUNK_BYTES = 1024 * 1024;
/** Chunks handed back for reuse so far, by every queue (a line's bytes seen through another queue's epoch stay safe). */
let reused = 0;
/** Chunks kept for reuse once written: a new megabyte per write is garbage of its own. */
const SPARE_CHUNKS = 2;

export class EncodedLineQueue extends BatchingQueue<string> {
  private current: Chunk = newChunk(CHUNK_BYTES);
  private readonly full: Chunk[] = [];
  private readonly spare: Chunk[] = [];
  /** Lines held (in `full` and `current`). */
  private lines = 0;

  constructor(options: EncodedQueueOptions, private readonly write: (chunks: EncodedLines[]) => Promise<void>) {
    super({ bufferSize: options.bufferSize, batchSize: options.batchLines, gatherMs: options.gatherMs, name: options.name });
  }

  protected get held(): number {
    return this.lines;
  }

  protected hold(line: string): void {
    // Room for the line however it encodes (UTF-8 takes at most 3 bytes per UTF-16 unit).
    const chunk = this.room(line.length * 3);
    this.ended(chunk.bytes + chunk.buffer.write(line, chunk.bytes));
  }

  /**
   * Buffers handed back for reuse so far: while it is the same, bytes written into the buffers
   * (reserve) are still there.
   */
  get epoch(): number {
    return reused;
  }

  /**
   * A line written in place, without a string: the buffer to write it into from `offset`, at
   * most `room` bytes, then `commit(end)`. Undefined when the queue is full (the line dropped
   * and counted, as push does).
   */
  reserve(room: number): Buffer | undefined {
    if (!this.admit()) return undefined;
    return this.room(room).buffer;
  }

  /** Where the line of the last reserve() starts. */
  get offset(): number {
    return this.current.bytes;
  }

  /** The line of the last reserve() ends at `end`: it is held. False when the writer is broken. */
  commit(end: number): boolean {
    this.ended(end);
    return this.taken();
  }

  /** The chunk with `room` bytes free after its last line (the current one, or a new current one). */
  private room(room: number): Chunk {
    const chunk = this.current;
    if (chunk.bytes + room <= chunk.buffer.length) return chunk;
    if (chunk.lines) this.full.push(chunk);
    return (this.current = room > CHUNK_BYTES ? newChunk(room) : this.spare.pop() ?? newChunk(CHUNK_BYTES));
  }

  private ended(end: number): void {
    const chunk = this.current;
    chunk.bytes = end;
    if (chunk.lines === chunk.ends.length) {
      const grown = new Uint32Array(chunk.ends.length * 2);
      grown.set(chunk.ends);
      chunk.ends = grown;
    }
    chunk.ends[chunk.lines++] = end;
    this.lines++;
  }

  /** Writes everything held now. */
  protected async drain(): Promise<void> {
    const chunks = this.full.splice(0);
    if (this.current.lines) {
      chunks.push(this.current);
      this.current = this.spare.pop() ?? newChunk(CHUNK_BYTES);
    }
    const lines = chunks.reduce((sum, c) => sum + c.lines, 0);
    this.lines -= lines;
    await this.written(lines, this.write(chunks.map((c) => ({ buffer: c.buffer.subarray(0, c.bytes), ends: c.ends.subarray(0, c.lines) }))));
    for (const c of chunks) {
      if (c.buffer.length !== CHUNK_BYTES || this.spare.length >= SPARE_CHUNKS) continue;
      c.bytes = 0;
      c.lines = 0;
      this.spare.push(c);
      reused++;
    }
  }
}

/** Room for this many line ends at first (a chunk of 1 MiB holds some 1,700 lines of a GET's events). */
const FIRST_ENDS = 4096;

function newChunk(bytes: number): Chunk {
  return { buffer: Buffer.allocUnsafe(bytes), bytes: 0, ends: new Uint32Array(FIRST_ENDS), lines: 0 };
}
