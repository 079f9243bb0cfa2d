// TLS material shared by the short-lived servers of one user's test runs (startCapstan, the
// envtest kube-apiserver): made once, in a private folder of the temporary directory, and loaded
// by every later start in well under a millisecond instead of generated again (tens of
// milliseconds, and a library to load). Never for a server that others reach.
import { lstatSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ensureServingMaterial, type ServingMaterial } from './certs.js';

/** The folder: per user, so that no one else's CA is ever trusted or used. */
export function sharedPkiDir(): string {
  return join(tmpdir(), `capstan-test-pki-${userInfo().uid}`);
}

/** Whether `dir` is a folder of ours that no one else may enter (not a link someone planted). */
function ours(dir: string): boolean {
  try {
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === userInfo().uid && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Read once per process (the folder is checked again after an hour: certificates are renewed a day before they expire). */
const REREAD_MS = 60 * 60 * 1000;
let cached: { at: number; material: Promise<ServingMaterial> } | undefined;

export function sharedServingMaterial(): Promise<ServingMaterial> {
  if (!cached || Date.now() - cached.at > REREAD_MS) {
    const material = readOrMake();
    cached = { at: Date.now(), material };
    material.catch(() => (cached = undefined));
  }
  return cached.material;
}

async function readOrMake(): Promise<ServingMaterial> {
  const dir = sharedPkiDir();
  if (!ours(dir)) {
    // Made aside, then put in place whole: a start running at the same time either sees the
    // complete folder or makes its own and finds this one there.
    const made = mkdtempSync(join(tmpdir(), 'capstan-pki-'));
    await ensureServingMaterial(made, []);
    try {
      renameSync(made, dir);
    } catch {
      // Another start put its own in place first (or something else is there: said below).
      rmSync(made, { recursive: true, force: true });
    }
    if (!ours(dir)) throw new Error(`${dir}: not a private folder of this user's (remove it, and capstan makes it again)`);
  }
  return ensureServingMaterial(dir, []);
}
