// End to end: kubectl create quota, kubectl describe quota and get -o yaml against the real
// capstan command; a pod past the quota refused; usage given back after a delete.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { until } from '../helpers.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

describe('kubectl and ResourceQuotas', () => {
  const suite = capstanForSuite();

  /** `kubectl describe quota` until its output matches (the controller records usage asynchronously). */
  async function describeUntil(pattern: RegExp): Promise<string> {
    let out = '';
    return until(() => `describe quota never matched ${pattern}:\n${out}`, async () => {
      out = await ok(suite.current.kubeconfig, ['describe', 'quota', 'q', '-n', 'quota-e2e']);
      return pattern.test(out) ? out : undefined;
    }, 20_000, 50);
  }

  it('create quota, describe it, get refused past it, and see usage come back after a delete', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', 'namespace', 'quota-e2e']);
    assert.match(await ok(kc, ['create', 'quota', 'q', '--hard=pods=1,requests.memory=1Gi', '-n', 'quota-e2e']), /resourcequota\/q created/);
    await describeUntil(/pods\s+0\s+1\n/);
    const yaml = await ok(kc, ['get', 'resourcequota', 'q', '-n', 'quota-e2e', '-o', 'yaml']);
    assert.match(yaml, /status:\n {2}hard:\n {4}pods: "1"\n {4}requests.memory: 1Gi\n {2}used:\n {4}pods: "0"\n {4}requests.memory: "0"\n/);

    const overrides = (name: string) => `{"apiVersion":"v1","spec":{"containers":[{"name":"${name}","image":"nginx","resources":{"requests":{"memory":"256Mi"}}}]}}`;
    await ok(kc, ['run', 'p1', '--image=nginx', '-n', 'quota-e2e', `--overrides=${overrides('p1')}`]);
    const out = await describeUntil(/pods\s+1\s+1\n/);
    assert.match(out, /requests\.memory\s+256Mi\s+1Gi/);
    const refused = await kubectl(kc, ['run', 'p2', '--image=nginx', '-n', 'quota-e2e', `--overrides=${overrides('p2')}`]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Error from server \(Forbidden\): pods "p2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1/);

    await ok(kc, ['delete', 'pod', 'p1', '-n', 'quota-e2e', '--wait=false']);
    await describeUntil(/pods\s+0\s+1\n/);
  });
});
