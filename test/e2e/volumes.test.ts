// End to end: volumes and claims made with kubectl bind, wait and release as with the reference's
// persistentvolume-controller.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { until } from '../helpers.js';
import { ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

const VOLUME = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: e2e-pv
spec:
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /mnt/data
`;
const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;
const BIG_CLAIM = CLAIM.replace('name: data', 'name: big').replace('storage: 1Gi', 'storage: 50Gi');

describe('kubectl and volume binding', { timeout: 120_000 }, () => {
  let capstan: Capstan;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-volumes-'));
    capstan = await startCapstan(join(dir, 'data'));
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a volume and a claim made with kubectl are Bound in kubectl get pv,pvc', async () => {
    const kc = capstan.kubeconfig;
    assert.equal(await ok(kc, ['create', '-f', '-'], VOLUME), 'persistentvolume/e2e-pv created\n');
    assert.equal(await ok(kc, ['create', '-f', '-'], CLAIM), 'persistentvolumeclaim/data created\n');
    const out = await until('Bound twice', async () => {
      const text = await ok(kc, ['get', 'pv,pvc']);
      return (text.match(/\bBound\b/g) ?? []).length === 2 ? text : undefined;
    });
    assert.match(out, /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+REASON\s+AGE\npersistentvolume\/e2e-pv\s+1Gi\s+RWO\s+Retain\s+Bound\s+default\/data\s+\S+\n/m);
    assert.match(out, /\nNAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+AGE\npersistentvolumeclaim\/data\s+Bound\s+e2e-pv\s+1Gi\s+RWO\s+\S+\n$/);
  });

  it('a claim nothing fits stays Pending, and kubectl describe shows the FailedBinding event', async () => {
    const kc = capstan.kubeconfig;
    await ok(kc, ['create', '-f', '-'], BIG_CLAIM);
    const described = await until('FailedBinding in describe', async () => {
      const text = await ok(kc, ['describe', 'pvc', 'big']);
      return text.includes('FailedBinding') ? text : undefined;
    });
    assert.match(described, /^Status:\s+Pending$/m);
    assert.match(described, /Normal\s+FailedBinding\s+\S+\s+persistentvolume-controller\s+no persistent volumes available for this claim and no storage class is set/);
  });

  it('deleting the claim leaves its Retain volume Released', async () => {
    const kc = capstan.kubeconfig;
    assert.equal(await ok(kc, ['delete', 'pvc', 'data']), 'persistentvolumeclaim "data" deleted\n');
    const out = await until('Released', async () => {
      const text = await ok(kc, ['get', 'pv', 'e2e-pv']);
      return /\bReleased\b/.test(text) ? text : undefined;
    });
    assert.match(out, /\ne2e-pv\s+1Gi\s+RWO\s+Retain\s+Released\s+default\/data\s+/);
  });
});
