// The data folder holds every Secret (the database) and the admin's keys: it is the owner's alone.
// Created 0700; one that exists with looser modes is tightened at start (the folder 0700, what is
// directly in it: files 0600, folders 0700), and the caller says so. Files written later stay
// private by how they are made (storage/private-file.ts): the database and lock files are created
// 0600 before SQLite opens them, and SQLite gives its -wal and -shm files their database file's mode.
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const PRIVATE_FOLDER = 0o700;
const PRIVATE_FILE = 0o600;
/** Bits that let anyone but the owner in. */
const OTHERS = 0o077;

export interface Tightened {
  /** The folder's mode before, when it was looser than 0700. */
  folderMode?: number;
  /** The names directly in it that others could read or enter. */
  entries: string[];
}

/**
 * Creates `dir` (and missing parents, with the usual modes) as a private folder, or makes an
 * existing one private. Says what it had to tighten (undefined: nothing).
 */
export function makeDataDirPrivate(dir: string): Tightened | undefined {
  let existed = true;
  try {
    statSync(dir);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
    existed = false;
  }
  if (!existed) {
    mkdirSync(dir, { recursive: true });
    // Explicitly: mkdir's mode is filtered by the umask, and a new folder is no news.
    chmodSync(dir, PRIVATE_FOLDER);
    return undefined;
  }
  const folder = statSync(dir);
  if (!folder.isDirectory()) throw Object.assign(new Error(`${dir} is not a folder`), { code: 'ENOTDIR' });
  const tightened: Tightened = { entries: [] };
  if ((folder.mode & 0o777) !== PRIVATE_FOLDER) {
    if (folder.mode & OTHERS) tightened.folderMode = folder.mode & 0o777;
    chmodSync(dir, PRIVATE_FOLDER);
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    const mode = statSync(path).mode & 0o777;
    if ((mode & OTHERS) === 0) continue;
    chmodSync(path, entry.isDirectory() ? PRIVATE_FOLDER : PRIVATE_FILE);
    tightened.entries.push(entry.name);
  }
  return tightened.folderMode !== undefined || tightened.entries.length > 0 ? tightened : undefined;
}

/** The one line a start prints when it had to tighten the folder. */
export function tightenedWarning(dir: string, t: Tightened): string {
  const folder = t.folderMode !== undefined ? `was ${t.folderMode.toString(8).padStart(4, '0')}` : 'held';
  const entries = t.entries.length ? `${t.folderMode !== undefined ? ', with ' : ' '}${t.entries.length} ${t.entries.length === 1 ? 'entry' : 'entries'} others could read (${t.entries.join(', ')})` : '';
  return `warning: --data-dir ${dir} ${folder}${entries}: made private (folder 0700, files 0600)`;
}
