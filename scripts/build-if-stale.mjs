// Whether dist/ holds a build of the sources as they are, and the build when it does not.
// "Built" is the newer of tsc's incremental record (dist/.tsbuildinfo, rewritten when tsc emits)
// and our own stamp (written after every build made here, since a build that finds nothing to do
// rewrites nothing); the sources are src/**/*.ts, tsconfig.json and package.json.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = 'dist/src/cmd/capstan.js';
const STAMP = 'dist/.start-stamp';

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, mtime(path));
  }
  return newest;
}

/** Why `root` needs a build, or undefined when dist/ is up to date. */
export function staleness(root = ROOT) {
  if (!existsSync(join(root, ENTRY))) return 'dist is missing';
  const built = Math.max(mtime(join(root, 'dist/.tsbuildinfo')), mtime(join(root, STAMP)));
  const sources = Math.max(newestSource(join(root, 'src')), mtime(join(root, 'tsconfig.json')), mtime(join(root, 'package.json')));
  return sources > built ? 'the sources changed since the last build' : undefined;
}

/** Builds as `npm run build` does (tsc, then the bundles) when stale; exits with the failing step's status. */
export function buildIfStale(root = ROOT) {
  const why = staleness(root);
  if (!why) return;
  process.stderr.write(`capstan: building (${why})…\n`);
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', root], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const bundled = spawnSync(process.execPath, [join(root, 'scripts/bundle.mjs')], { stdio: 'inherit' });
  if (bundled.status !== 0) process.exit(bundled.status ?? 1);
  writeFileSync(join(root, STAMP), `${new Date().toISOString()}\n`);
}
