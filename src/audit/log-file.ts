// The audit log file, rotated as the reference's (lumberjack's) rotation does it: past
// --audit-log-maxsize megabytes (100 when 0) the file is renamed to
// <name>-<UTC time 2006-01-02T15-04-05.000><ext> and a new one started; then backups beyond
// --audit-log-maxbackup (0: all kept) and older than --audit-log-maxage days (0: any age) are
// removed, and with --audit-log-compress the others gzipped (<backup>.gz).
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { EncodedLines } from './encoded-queue.js';

export interface RotationOptions {
  /** Megabytes; 0 means lumberjack's 100. */
  maxSizeMb: number;
  maxBackups: number;
  maxAgeDays: number;
  compress: boolean;
}

const MEGABYTE = 1024 * 1024;
const DEFAULT_MAX_SIZE_MB = 100;

/** Lumberjack's backup time: 2006-01-02T15-04-05.000, UTC. */
function backupTime(date: Date): string {
  return date.toISOString().slice(0, 23).replace(/:/g, '-');
}

/** Where the last of the lines ends (0 without any). */
function linesEnd(lines: EncodedLines): number {
  const ends = lines.ends;
  return ends.length === 0 ? 0 : ends[ends.length - 1]!;
}

export class RotatingFile {
  private handle: fs.FileHandle | undefined;
  private size = 0;
  /** The time in the last backup's name. */
  private lastBackupMs = 0;
  private readonly maxBytes: number;
  private readonly prefix: string;
  private readonly ext: string;

  constructor(readonly path: string, private readonly rotation: RotationOptions) {
    this.maxBytes = (rotation.maxSizeMb || DEFAULT_MAX_SIZE_MB) * MEGABYTE;
    this.ext = extname(path);
    this.prefix = `${basename(path, this.ext)}-`;
  }

  /** Creates the file (and its folder) as the reference does before serving: mode 0600, folder 0700. */
  async ensure(): Promise<void> {
    await fs.mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const h = await fs.open(this.path, 'a', 0o600);
    await h.close();
  }

  /** Appends encoded lines (each a whole event); rotates before a line that would pass the limit. */
  async write(chunks: readonly EncodedLines[]): Promise<void> {
    if (!this.handle) await this.open();
    // The chunks that fit in the file go in one write, their lines not gone through one by one
    // (a loop in an async function, a few thousand lines at a time, ran unoptimized), and
    // together (each write is a trip through libuv's thread pool).
    let whole = 0;
    let bytes = 0;
    for (; whole < chunks.length; whole++) {
      const size = linesEnd(chunks[whole]!);
      if (this.size + bytes + size > this.maxBytes) break;
      bytes += size;
    }
    if (bytes > 0) {
      await this.handle!.writev(chunks.slice(0, whole).map((c) => c.buffer.subarray(0, linesEnd(c))));
      this.size += bytes;
    }
    for (let c = whole; c < chunks.length; c++) {
      const { buffer, ends } = chunks[c]!;
      const count = ends.length;
      // Lines from `from` to `to` (bytes) go in one write while they fit in the file.
      let from = 0;
      let to = 0;
      for (let i = 0; i < count; i++) {
        const end = ends[i]!;
        const bytes = end - to;
        if (bytes > this.maxBytes) {
          // A line larger than a whole file is refused, as lumberjack refuses such a write.
          await this.flush(buffer, from, to);
          from = to = end;
          continue;
        }
        if (this.size + (to - from) + bytes > this.maxBytes) {
          await this.flush(buffer, from, to);
          from = to;
          await this.rotate();
        }
        to = end;
      }
      await this.flush(buffer, from, to);
    }
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    await h?.close();
  }

  private async flush(buffer: Buffer, from: number, to: number): Promise<void> {
    if (to === from) return;
    await this.handle!.write(buffer, from, to - from);
    this.size += to - from;
  }

  private async open(): Promise<void> {
    this.handle = await fs.open(this.path, 'a', 0o600);
    const stat = await this.handle.stat();
    this.size = stat.size;
    // A device or a pipe (/dev/null, a FIFO) is written, never renamed.
    if (!stat.isFile()) this.size = Number.NEGATIVE_INFINITY;
  }

  private async rotate(): Promise<void> {
    await this.close();
    // Backups are named to the millisecond: rotations within one (several large lines in one
    // write) each take the next, so that none is renamed over another.
    const at = Math.max(Date.now(), this.lastBackupMs + 1);
    this.lastBackupMs = at;
    const backup = join(dirname(this.path), `${this.prefix}${backupTime(new Date(at))}${this.ext}`);
    await fs.rename(this.path, backup).catch(() => undefined);
    this.handle = await fs.open(this.path, 'a', 0o600);
    this.size = 0;
    await this.mill().catch((err: Error) => process.stderr.write(`audit log: cleaning old files failed: ${err.message}\n`));
  }

  /** Old files past the count or age removed, the rest compressed when asked. */
  private async mill(): Promise<void> {
    const { maxBackups, maxAgeDays, compress } = this.rotation;
    if (!maxBackups && !maxAgeDays && !compress) return;
    const folder = dirname(this.path);
    const backups = (await fs.readdir(folder))
      .map((name) => ({ name, at: this.timeOf(name) }))
      .filter((b): b is { name: string; at: number } => b.at !== undefined)
      .sort((a, b) => b.at - a.at);
    let keep = backups;
    const remove: string[] = [];
    if (maxBackups > 0 && keep.length > maxBackups) {
      // A compressed and an uncompressed copy of one backup count once.
      const seen = new Set<string>();
      const kept: typeof keep = [];
      for (const b of keep) {
        const key = b.name.replace(/\.gz$/, '');
        if (!seen.has(key)) seen.add(key);
        if (seen.size > maxBackups) remove.push(b.name);
        else kept.push(b);
      }
      keep = kept;
    }
    if (maxAgeDays > 0) {
      const cutoff = Date.now() - maxAgeDays * 24 * 3_600_000;
      keep = keep.filter((b) => (b.at < cutoff ? (remove.push(b.name), false) : true));
    }
    for (const name of remove) await fs.rm(join(folder, name), { force: true });
    if (!compress) return;
    for (const b of keep) {
      if (b.name.endsWith('.gz')) continue;
      const from = join(folder, b.name);
      await pipeline(createReadStream(from), createGzip(), createWriteStream(`${from}.gz`, { mode: 0o600 }));
      await fs.rm(from, { force: true });
    }
  }

  /** The time in a backup's name (ms), or undefined for other files. */
  private timeOf(name: string): number | undefined {
    const plain = name.endsWith('.gz') ? name.slice(0, -3) : name;
    if (!plain.startsWith(this.prefix) || !plain.endsWith(this.ext)) return undefined;
    const stamp = plain.slice(this.prefix.length, plain.length - this.ext.length);
    const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(stamp);
    if (!m) return undefined;
    return Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  }
}
