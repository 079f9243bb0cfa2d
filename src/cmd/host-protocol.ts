// What the kube-apiserver launcher and the shared host say to each other: one JSON object per
// line over a Unix socket in a private folder of the temporary directory, one folder per user and
// capstan build (a rebuilt capstan never talks to a host running the old code).
import { mkdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type LauncherMessage = { start: { argv: string[]; cwd: string; started: number } } | { stop: true };
export type HostMessage = { say: string; warning: boolean } | { ready: true } | { error: string } | { stopped: true };

/** The host's folder (created 0700), socket and log. */
export function hostPaths(): { dir: string; socket: string; log: string } {
  const build = fileURLToPath(new URL('./kube-apiserver-start.js', import.meta.url));
  const id = createHash('sha256').update(`${build}\0${statSync(build).mtimeMs}`).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `capstan-host-${userInfo().uid}-${id}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const owner = statSync(dir);
  if (owner.uid !== userInfo().uid || (owner.mode & 0o077) !== 0) throw new Error(`${dir}: not a private folder of this user's`);
  return { dir, socket: join(dir, 'host.sock'), log: join(dir, 'host.log') };
}
