// End to end: kubectl sees allocated node ports and the `kubernetes` Service as on the reference.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

describe('kubectl and Service allocation', () => {
  let capstan: Capstan;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-svc-'));
    // A loopback address may not be an Endpoints address (the reference refuses it too): the
    // server is told to advertise a documentation address.
    capstan = await startCapstan(join(dir, 'data'), ['--advertise-address', '192.0.2.10']);
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl create service nodeport shows the allocated node port', async () => {
    const kc = capstan.kubeconfig;
    assert.equal(await ok(kc, ['create', 'service', 'nodeport', 'web', '--tcp=80:8080']), 'service/web created\n');
    const out = await ok(kc, ['get', 'service', 'web']);
    assert.match(out, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nweb\s+NodePort\s+10\.(9[6-9]|1[01]\d)\.\d+\.\d+\s+<none>\s+80:3\d{4}\/TCP\s+\S+\n$/);
  });

  it('kubectl get svc and endpoints show the kubernetes Service as the reference does', async () => {
    const kc = capstan.kubeconfig;
    assert.match(await ok(kc, ['get', 'svc', 'kubernetes']), /\nkubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+\S+\n$/);
    const endpoints = await ok(kc, ['get', 'endpoints', 'kubernetes']);
    assert.match(endpoints, /^NAME\s+ENDPOINTS\s+AGE\nkubernetes\s+192\.0\.2\.10:\d+\s+\S+\n$/);
    const port = /192\.0\.2\.10:(\d+)/.exec(endpoints)![1];
    assert.equal(new URL(JSON.parse(await ok(kc, ['config', 'view', '--raw', '-o', 'json'])).clusters[0].cluster.server).port, port);
  });
});
