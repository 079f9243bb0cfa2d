// One capstan per data folder. The lock is SQLite's own file lock (fcntl, taken by an exclusive
// transaction on <data-dir>/capstan.lock and kept by the exclusive locking mode): the operating
// system drops it when the process ends, kill -9 included, so a crash never leaves a stale lock.
// The holder writes its pid into the file's header (user_version, bytes 60–63); the file's bytes
// stay readable to others (the lock is advisory), which is how a second server names the first.
import Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateFile } from '../storage/private-file.js';

export const LOCK_FILE = 'capstan.lock';

/** Long enough to ride out two servers starting at the same instant; a held lock fails after it. */
const BUSY_WAIT_MS = 200;
/** Where SQLite keeps user_version in the database header. */
const USER_VERSION_OFFSET = 60;

/** Another process holds the folder. */
export class DataDirInUseError extends Error {
  constructor(readonly dir: string, readonly holder: number | undefined) {
    super(`${dir} is in use by ${holder ? `another capstan (pid ${holder})` : 'another capstan'}: stop it, or give this one another --data-dir`);
  }
}

export interface DataDirLock {
  release(): void;
}

/** Takes the folder's lock for this process, or throws DataDirInUseError naming the holder. */
export function lockDataDir(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE);
  createPrivateFile(path);
  const db = new Database(path, { timeout: BUSY_WAIT_MS });
  try {
    // The journal in memory: the folder gets one file, and nothing of it is left when the lock goes.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    // The pid need not outlive a crash (the lock goes with the process): no fsync at every start.
    db.pragma('synchronous = OFF');
    db.exec('BEGIN EXCLUSIVE');
    db.pragma(`user_version = ${process.pid}`);
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dir, holderOf(path));
    throw err;
  }
  return { release: () => db.close() };
}

/** The pid the holder wrote, when it is a live process. */
function holderOf(path: string): number | undefined {
  let pid = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      const header = Buffer.alloc(4);
      if (readSync(fd, header, 0, 4, USER_VERSION_OFFSET) === 4) pid = header.readUInt32BE(0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive, someone else's.
    if ((err as { code?: string }).code !== 'EPERM') return undefined;
  }
  return pid;
}
