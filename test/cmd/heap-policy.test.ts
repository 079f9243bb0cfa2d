// The capstan command collects its old generation at 1.5× what was live (src/cmd/heap-policy.ts),
// from a second after it is ready: not during the start, nor before the launcher has written its
// code cache. Seen from outside by a preload that reports every V8 flag the process sets.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers.js';

// Reports each flag set, with the time since the process started.
const PRELOAD = `
const v8 = require('node:v8');
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  process.stderr.write('v8 flags ' + flags + ' at ' + Math.round(performance.now()) + ' ms\\n');
  return set(flags);
};
require('node:module').syncBuiltinESMExports();
`;

describe('the capstan command\'s heap policy', { timeout: 30_000 }, () => {
  it('sets the old generation\'s growth to 1.5× a second after it is ready, and not before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-heap-policy-'));
    writeFileSync(join(dir, 'preload.cjs'), PRELOAD);
    const child = spawn(process.execPath, [join(repoRoot, 'dist/src/cmd/capstan.js'), '--storage', 'memory', '--data-dir', join(dir, 'data'), '--secure-port', '0', '--bind-address', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: `--require ${join(dir, 'preload.cjs')}` },
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const flagsSet = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no flag set in 20 s: ${stdout}${stderr}`)), 20_000);
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          if (/v8 flags .* at \d+ ms\n/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`capstan exited with ${code}: ${stdout}${stderr}`)));
      });
      await flagsSet;
      const ready = /ready in (\d+) ms/.exec(stdout);
      assert.ok(ready, `the server said it was ready before the flag was set: ${stdout}`);
      const set = [...stderr.matchAll(/v8 flags (.*) at (\d+) ms/g)];
      assert.deepEqual(set.map((m) => m[1]), ['--heap-growing-percent=50']);
      // "ready in" counts from the process's start, as performance.now() does.
      assert.ok(Number(set[0]![2]) >= Number(ready[1]) + 950, `set at ${set[0]![2]} ms, ready at ${ready[1]} ms`);
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
