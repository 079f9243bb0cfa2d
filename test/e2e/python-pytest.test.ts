// The README's pytest fixture (test/python/test_capstan_fixture.py) run for real: /usr/bin/python3
// with Debian's python3-pytest and python3-kubernetes (installed by .ci/run) against the capstan
// command. Skipped, with a message, where either is absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers.js';
import { missingPythonModules, PYTHON } from './harness.js';

const skip = missingPythonModules(['kubernetes', 'pytest'], 'python3-kubernetes python3-pytest');

describe('pytest with the Python client and a capstan fixture', { timeout: 120_000 }, () => {
  it('the README\'s fixture: four tests pass, each from the first state', { skip }, async () => {
    const command = `${process.execPath} ${join(repoRoot, 'dist/src/cmd/capstan.js')}`;
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(repoRoot, 'test/python')], { timeout: 100_000, env: { ...process.env, CAPSTAN_COMMAND: command } }, (err, out, stderr) => {
        if (err) reject(new Error(`pytest failed: ${err.message}\n${out}\n${stderr}`));
        else resolve({ stdout: out });
      });
    });
    assert.match(stdout, /^4 passed in [\d.]+s$/m);
  });
});
