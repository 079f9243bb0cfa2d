// Runs a command from its one-file build (dist/bundle/<command>.cjs, scripts/bundle.mjs) with V8's
// code cache beside it (<command>.cjs.<size>-<mtime>.cache), when the bundle is there and no older than tsc's
// last output: one file read and a cached compile instead of ~470 modules resolved, read and
// compiled (about 40% of the CPU a start takes). The cache is written by the first run that finds
// none (or one V8 refuses: another Node, other flags), a second after it starts or when it exits if
// sooner, so that it holds what the start compiled; a folder it cannot write to only costs the cache.
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const DIST = fileURLToPath(new URL('../../', import.meta.url));
const CACHE_AFTER_MS = 1000;

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Runs `command`'s bundle and answers true, or answers false (the caller imports its modules).
 * `dist` is the build's folder (another for a test).
 */
export function runBundled(command: string, dist = DIST): boolean {
  const file = join(dist, 'bundle', `${command}.cjs`);
  // CAPSTAN_BUNDLE=0 runs the modules (a debugger's source maps, a test of both ways).
  if (process.env['CAPSTAN_BUNDLE'] === '0' || !process.features.require_module) return false;
  const built = mtime(file);
  if (built === 0 || built < mtime(join(dist, '.tsbuildinfo'))) return false;
  const bytes = readFileSync(file);
  // The build makes the bundle ASCII (scripts/bundle.mjs): as Latin-1 it is a one-byte string,
  // made without decoding.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8').replace(/^#!.*/, '');
  // V8 checks a cache against the source's length only: the cache is named for this very bundle.
  const cacheFile = `${file}.${Buffer.byteLength(source)}-${Math.trunc(built)}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapper, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    let written = false;
    const writeCache = () => {
      if (written) return;
      written = true;
      try {
        const partial = `${cacheFile}.${process.pid}`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, cacheFile);
      } catch {
        // A folder this user cannot write to: every start compiles, as without the cache.
      }
    };
    setTimeout(writeCache, CACHE_AFTER_MS).unref();
    process.once('exit', writeCache);
  }
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  return true;
}
