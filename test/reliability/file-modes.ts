// File modes of the data folder (issue 14 item 2): the folder 0700 and every file in it 0600, so
// that no other local user can read the database (every Secret is in it) or the keys.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from './client.js';
import type { Figures } from './figures.js';
import { startProbeServer } from './server.js';

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/** Every file under `dir` (depth-first) with its permission bits. */
function modesUnder(dir: string): { path: string; mode: number; isDir: boolean }[] {
  const out: { path: string; mode: number; isDir: boolean }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const isDir = entry.isDirectory();
    out.push({ path, mode: statSync(path).mode & 0o777, isDir });
    if (isDir) out.push(...modesUnder(path));
  }
  return out;
}

/** Starts capstan on a fresh `dataDir`, writes a Secret, and checks the modes while it runs. */
export async function fileModes(dataDir: string, figures: Figures): Promise<void> {
  const server = await startProbeServer(dataDir);
  try {
    const admin = new Client(server.url, server.admin);
    await admin.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'modes' }, stringData: { a: 'b' } } });
    admin.close();
    const dirMode = statSync(dataDir).mode & 0o777;
    figures.check('data dir mode', octal(dirMode), '0700', dirMode === 0o700);
    const entries = modesUnder(dataDir);
    const loose = entries.filter((e) => (e.isDir ? e.mode !== 0o700 : e.mode !== 0o600));
    const describe = (list: typeof entries) => (list.length ? list.map((e) => `${e.path.slice(dataDir.length + 1)} ${octal(e.mode)}`).join(', ') : `0 of ${entries.length}`);
    figures.check('files not 0600 and folders not 0700 (database, lock, keys, certificates, kubeconfig)', describe(loose), '0', loose.length === 0);
  } finally {
    await server.stop();
  }
}
