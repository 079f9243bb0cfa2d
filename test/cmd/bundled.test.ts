// The commands' one-file builds (scripts/bundle.mjs, run by src/cmd/bundled.ts): run when current,
// with V8's code cache written beside them once and taken after; passed over when tsc wrote after
// them or CAPSTAN_BUNDLE=0; and the real bundle serves as the modules do.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBundled } from '../../src/cmd/bundled.js';
import { repoRoot } from '../helpers.js';

const probe = globalThis as { bundleRuns?: string[] };

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('one-file builds of the commands', { timeout: 60_000 }, () => {
  it('runs a current bundle with its code cache, and passes over a stale one', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'capstan-bundle-'));
    const saved = process.env['CAPSTAN_BUNDLE'];
    try {
      mkdirSync(join(dist, 'bundle'));
      const bundle = join(dist, 'bundle/probe.cjs');
      writeFileSync(join(dist, '.tsbuildinfo'), '{}');
      const past = new Date(Date.now() - 60_000);
      utimesSync(join(dist, '.tsbuildinfo'), past, past);
      writeFileSync(bundle, '#!/usr/bin/env node\n(globalThis.bundleRuns ??= []).push(require("node:path").basename(__dirname) + ":" + typeof module.exports);\n');
      probe.bundleRuns = [];
      assert.equal(runBundled('absent', dist), false);
      assert.equal(runBundled('probe', dist), true);
      assert.deepEqual(probe.bundleRuns, ['bundle:object']);
      // The first run leaves the cache a second after it starts; the next takes it as it is.
      const caches = () => readdirSync(join(dist, 'bundle')).filter((f) => f.endsWith('.cache'));
      await until(() => caches().length === 1, 5000);
      const [cache] = caches();
      const cached = statSync(join(dist, 'bundle', cache!)).mtimeMs;
      assert.equal(runBundled('probe', dist), true);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(statSync(join(dist, 'bundle', cache!)).mtimeMs, cached);
      // Another bundle of the same length (V8 would take the old cache for it) gets its own.
      writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('":"', '";"'));
      assert.equal(runBundled('probe', dist), true);
      await until(() => caches().length === 2, 5000);
      assert.deepEqual(probe.bundleRuns, ['bundle:object', 'bundle:object', 'bundle;object']);
      // tsc wrote after the bundle: the modules run instead.
      utimesSync(bundle, past, past);
      writeFileSync(join(dist, '.tsbuildinfo'), '{}');
      assert.equal(runBundled('probe', dist), false);
      utimesSync(join(dist, '.tsbuildinfo'), past, past);
      process.env['CAPSTAN_BUNDLE'] = '0';
      assert.equal(runBundled('probe', dist), false);
      assert.equal(probe.bundleRuns.length, 3);
    } finally {
      if (saved === undefined) delete process.env['CAPSTAN_BUNDLE'];
      else process.env['CAPSTAN_BUNDLE'] = saved;
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('the built bundle and the modules print the same help, and the bundle finds its data', async () => {
    assert.ok(existsSync(join(repoRoot, 'dist/bundle/capstan.cjs')), 'npm run build makes dist/bundle/capstan.cjs');
    const run = (env: NodeJS.ProcessEnv, args: string[]) =>
      new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [join(repoRoot, 'dist/src/cmd/capstan.js'), ...args], { env: { ...process.env, ...env }, timeout: 20_000 }, (err, out) => (err ? reject(err) : resolve(out)));
      });
    const [bundled, modules] = await Promise.all([run({}, ['--help']), run({ CAPSTAN_BUNDLE: '0' }, ['--help'])]);
    assert.match(bundled, /--feature-gates/);
    assert.equal(bundled, modules);
    // convert reads the OpenAPI document from data/, found relative to the module that reads it.
    const dir = mkdtempSync(join(tmpdir(), 'capstan-bundle-'));
    try {
      writeFileSync(join(dir, 'hpa.yaml'), 'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nspec: {scaleTargetRef: {kind: Deployment, name: d, apiVersion: apps/v1}, maxReplicas: 3, targetCPUUtilizationPercentage: 50}\n');
      const args = ['convert', '-f', join(dir, 'hpa.yaml'), '--output-version', 'autoscaling/v2'];
      const [fromBundle, fromModules] = await Promise.all([run({}, args), run({ CAPSTAN_BUNDLE: '0' }, args)]);
      assert.match(fromBundle, /averageUtilization: 50/);
      assert.equal(fromBundle, fromModules);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
