// `npm start` (scripts/start.mjs): builds only when dist/ is missing or older than the sources,
// so that a start, --help and --version do not wait for the compiler each time.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers.js';

interface BuildIfStale {
  staleness(root: string): string | undefined;
}

const script = (name: string) => join(repoRoot, 'scripts', name);

describe('npm start', { timeout: 60_000 }, () => {
  it('knows when dist/ is missing or older than the sources', async () => {
    const { staleness } = (await import(pathToFileURL(script('build-if-stale.mjs')).href)) as BuildIfStale;
    const root = mkdtempSync(join(tmpdir(), 'capstan-start-'));
    try {
      mkdirSync(join(root, 'src/cmd'), { recursive: true });
      writeFileSync(join(root, 'src/cmd/capstan.ts'), '');
      writeFileSync(join(root, 'tsconfig.json'), '{}');
      writeFileSync(join(root, 'package.json'), '{}');
      assert.equal(staleness(root), 'dist is missing');
      mkdirSync(join(root, 'dist/src/cmd'), { recursive: true });
      writeFileSync(join(root, 'dist/src/cmd/capstan.js'), '');
      writeFileSync(join(root, 'dist/.tsbuildinfo'), '');
      const past = new Date(Date.now() - 60_000);
      for (const f of ['src/cmd/capstan.ts', 'tsconfig.json', 'package.json']) utimesSync(join(root, f), past, past);
      assert.equal(staleness(root), undefined);
      writeFileSync(join(root, 'src/cmd/capstan.ts'), '// changed');
      assert.equal(staleness(root), 'the sources changed since the last build');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers --version from a built tree without building again', async () => {
    const { staleness } = (await import(pathToFileURL(script('build-if-stale.mjs')).href)) as BuildIfStale;
    const fresh = staleness(repoRoot) === undefined;
    const started = Date.now();
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(process.execPath, [script('start.mjs'), '--version'], { cwd: repoRoot, timeout: 50_000 }, (err, out, errText) => (err ? reject(err) : resolve({ stdout: out, stderr: errText })));
    });
    assert.equal(stdout, 'Kubernetes v1.25.0+capstan.0.1.0\n');
    // A tree touched since its last build is built once first (and says so); a fresh one is not.
    if (fresh) {
      assert.equal(stderr, '');
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    } else {
      assert.match(stderr, /^capstan: building \(the sources changed since the last build\)/);
    }
  });
});
