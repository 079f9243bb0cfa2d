// End to end: the Debian Python client (python3-kubernetes 22.6, installed by .ci/run) against
// the real capstan — create, list, a watch (it sends watch=True) and a forced server-side apply
// (force=True). Skipped, with a message, where /usr/bin/python3 or its kubernetes module is absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers.js';
import { capstanForSuite, missingPythonModules, PYTHON } from './harness.js';

interface Seen {
  version: string;
  listed: string[];
  watched: string[];
  unforced: number | string;
  forced: { data: Record<string, string>; managers: string[] };
}

function runClient(kubeconfig: string, namespace: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [join(repoRoot, 'test/e2e/python-client.py'), kubeconfig, namespace], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`python client failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Seen);
    });
  });
}

const missing = missingPythonModules(['kubernetes'], 'python3-kubernetes');
if (missing) console.log(`skipping the Python client tests: ${missing}`);

describe('the Python client (python3-kubernetes) against capstan', { skip: missing, timeout: 90_000 }, () => {
  const capstan = capstanForSuite();

  it('creates, lists, watches (watch=True) and force-applies (force=True) as against the reference', async () => {
    const seen = await runClient(capstan.current.kubeconfig, 'python-client');
    assert.match(seen.version, /^22\./);
    assert.deepEqual(seen.listed, ['first', 'kube-root-ca.crt']);
    // The watch streams: the changes after the list replayed in order, then one made while watching.
    assert.deepEqual(seen.watched, [
      'ADDED second {"k": "1"}',
      'MODIFIED second {"k": "2"}',
      'DELETED second {"k": "2"}',
      'ADDED live {"k": "1"}',
    ]);
    // Without force a second manager conflicts; force=True takes the field.
    assert.equal(seen.unforced, 409);
    assert.deepEqual(seen.forced.data, { k: 'theirs' });
    assert.deepEqual(seen.forced.managers, ['second-manager']);
  });
});
