// A first-in, first-out queue kept in fixed-size chunks. A watcher's queue takes one entry per
// change: an array would copy itself as it grows, and a stalled watcher's copies live long enough
// to be promoted to the old generation (a thousand stalled watchers made most of the garbage that
// piled up there while they were fed). Here growing allocates a chunk and copies nothing, and a
// queue that empties keeps its one chunk for the next entries.

const CHUNK = 64;

export class ChunkedFifo<T> {
  /** The chunks, oldest first; entries are read from `chunks[0]` at `readAt`, written to the last at `writeAt`. */
  private chunks: Array<Array<T | undefined>> = [];
  private readAt = 0;
  private writeAt = CHUNK;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.writeAt === CHUNK) {
      this.chunks.push(new Array<T | undefined>(CHUNK));
      this.writeAt = 0;
    }
    this.chunks[this.chunks.length - 1]![this.writeAt++] = item;
    this.count++;
  }

  /** The oldest entry, taken out; undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const chunk = this.chunks[0]!;
    const item = chunk[this.readAt];
    chunk[this.readAt++] = undefined;
    this.count--;
    if (this.count === 0) {
      // Empty: keep one chunk, from its start.
      if (this.chunks.length > 1) this.chunks = [chunk];
      this.readAt = 0;
      this.writeAt = 0;
    } else if (this.readAt === CHUNK) {
      this.chunks.shift();
      this.readAt = 0;
    }
    return item;
  }

  clear(): void {
    this.chunks = [];
    this.readAt = 0;
    this.writeAt = CHUNK;
    this.count = 0;
  }
}
