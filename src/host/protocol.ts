// What the shared host (cmd/host.ts) and the programs it serves (the kube-apiserver launcher,
// startCapstan) say to each other: one JSON object per line over a Unix socket in a private folder
// of the temporary directory, one folder per user and capstan build (a rebuilt capstan never talks
// to a host running the old code). A client sends one start, then (maybe) a stop; closing the
// connection stops its server too.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whose command line the start carries: kube-apiserver's (the launcher) or capstan's (startCapstan). */
export type Dialect = 'kube-apiserver' | 'capstan';
export type ClientMessage = { start: { dialect: Dialect; argv: string[]; cwd: string; started: number } } | { stop: true };
export type HostMessage = { say: string; warning: boolean } | { ready: { url: string; kubeconfig: string; pid: number } } | { error: string } | { stopped: true };

/** The host program. */
export const HOST_SCRIPT = fileURLToPath(new URL('../cmd/host.js', import.meta.url));
const BUILD_RECORD = fileURLToPath(new URL('../../.tsbuildinfo', import.meta.url));
const HOST_BUNDLE = fileURLToPath(new URL('../../bundle/host.cjs', import.meta.url));

/** The host's folder (created 0700), socket and log. */
export function hostPaths(): { dir: string; socket: string; log: string } {
  // One host per build: the script, and when tsc and the bundler last wrote (a build that changed
  // only the modules the script loads still changes the host).
  const built = [HOST_SCRIPT, BUILD_RECORD, HOST_BUNDLE].map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0));
  const id = createHash('sha256').update(`${HOST_SCRIPT}\0${built.join('\0')}`).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `capstan-host-${userInfo().uid}-${id}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const owner = statSync(dir);
  if (owner.uid !== userInfo().uid || (owner.mode & 0o077) !== 0) throw new Error(`${dir}: not a private folder of this user's`);
  return { dir, socket: join(dir, 'host.sock'), log: join(dir, 'host.log') };
}


/** Calls `each` with every message (one JSON object per line) that comes on the socket. */
export function onMessages<M>(socket: Socket, each: (message: M) => void): void {
  let buffered = '';
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      each(JSON.parse(line) as M);
    }
  });
}
