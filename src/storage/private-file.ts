// Files that hold what only the server's owner may read (the database: every Secret) are created
// 0600 before SQLite opens them. SQLite creates a database's -wal and -shm files with the mode of
// the database file, so they follow; a process umask would not survive a library user's own.
import { chmodSync, closeSync, openSync } from 'node:fs';

const PRIVATE_FILE = 0o600;

/** Creates `path` empty with mode 0600 when it does not exist (an empty file is a new SQLite database). */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE));
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
    return;
  }
  // open's mode is filtered by the umask: set it whole.
  chmodSync(path, PRIVATE_FILE);
}
