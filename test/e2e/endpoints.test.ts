// Endpoints and EndpointSlices end to end: kubectl sees a Service's endpoints follow its pods
// turning ready and going away (the test writes pod status as a kubelet would), for a plain
// Service with a named port, a headless one publishing pods not ready, one whose named port no pod
// has, and user Endpoints of a Service without selector mirrored into a slice; Endpoints whose
// Service is gone are removed when the controller starts again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sleep, until } from '../helpers.js';
import { capstanForSuite, kubectl, ok, startCapstan, stopCapstan } from './harness.js';

const MANIFEST = `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: web-hl, namespace: shop}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app: web}
  ports: [{port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: broken, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: nope}]
` + ['web-1', 'web-2'].map((name) => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: shop, labels: {app: web}}
spec:
  nodeName: node-1
  terminationGracePeriodSeconds: 0
  containers: [{name: nginx, image: nginx:1.25, ports: [{name: http, containerPort: 8080}]}]
`).join('');

/** The pod's status as its kubelet would write it. */
function status(ip: string, ready: boolean): string {
  return JSON.stringify({ status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
}

describe('kubectl get endpoints and endpointslices', () => {
  const suite = capstanForSuite();
  const kc = () => suite.current.kubeconfig;
  /** The ENDPOINTS column of `kubectl get endpoints <name>`. */
  const endpointsColumn = async (name: string) => {
    const out = await ok(kc(), ['get', 'endpoints', name, '-n', 'shop', '--no-headers']);
    // Only not-ready addresses print as an empty cell: just the age follows the name then.
    const cells = out.trim().slice(name.length).trim().split(/\s+/);
    return cells.length === 1 ? '' : cells[0];
  };
  const waitColumn = (name: string, want: string) => until(() => `endpoints ${name} shows ${want}`, async () => (await endpointsColumn(name)) === want, 10_000, 50);
  /** `kubectl get endpointslices` rows of a Service: [ADDRESSTYPE, PORTS, ENDPOINTS]. */
  const sliceRows = async (service: string) => {
    const out = await ok(kc(), ['get', 'endpointslices', '-n', 'shop', '-l', `kubernetes.io/service-name=${service}`, '--no-headers']);
    return out.trim().split('\n').filter(Boolean).map((line) => line.split(/\s+/).slice(1, 4));
  };
  const waitSlices = (service: string, want: string[][]) => {
    let seen: string[][] = [];
    return until(() => `slices of ${service} show ${JSON.stringify(want)} (they show ${JSON.stringify(seen)})`, async () => {
      seen = await sliceRows(service);
      return JSON.stringify(seen) === JSON.stringify(want);
    }, 10_000, 50);
  };

  it('a Service without ready pods shows <none>; its slice is empty', async () => {
    await ok(kc(), ['create', 'namespace', 'shop']);
    await ok(kc(), ['apply', '-f', '-'], MANIFEST);
    await waitColumn('web', '<none>');
    await waitSlices('web', [['IPv4', '<unset>', '<unset>']]);
    const header = await ok(kc(), ['get', 'endpoints', 'web', '-n', 'shop']);
    assert.match(header, /^NAME\s+ENDPOINTS\s+AGE\nweb\s+<none>\s+\S+\n$/);
  });

  it('endpoints follow pods turning ready and going away', async () => {
    await ok(kc(), ['patch', 'pod', 'web-1', '-n', 'shop', '--subresource=status', '--type=merge', '-p', status('10.244.0.5', false)]);
    // Not ready: listed among notReadyAddresses, which the ENDPOINTS column leaves out (an empty
    // cell, as kubectl prints it for the reference); the slice shows it.
    await waitSlices('web', [['IPv4', '8080', '10.244.0.5']]);
    assert.equal(await endpointsColumn('web'), '');
    const notReady = await ok(kc(), ['get', 'endpoints', 'web', '-n', 'shop', '-o', 'jsonpath={.subsets[0].notReadyAddresses[0].ip} {.subsets[0].notReadyAddresses[0].targetRef.name} {.subsets[0].ports[0].name}']);
    assert.equal(notReady, '10.244.0.5 web-1 http');

    await ok(kc(), ['patch', 'pod', 'web-1', '-n', 'shop', '--subresource=status', '--type=merge', '-p', status('10.244.0.5', true)]);
    await ok(kc(), ['patch', 'pod', 'web-2', '-n', 'shop', '--subresource=status', '--type=merge', '-p', status('10.244.0.6', true)]);
    await waitColumn('web', '10.244.0.5:8080,10.244.0.6:8080');
    await waitSlices('web', [['IPv4', '8080', '10.244.0.5,10.244.0.6']]);
    const conditions = await ok(kc(), ['get', 'endpointslices', '-n', 'shop', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[0].endpoints[0].conditions}']);
    assert.deepEqual(JSON.parse(conditions), { ready: true, serving: true, terminating: false });

    await ok(kc(), ['delete', 'pod', 'web-1', '-n', 'shop', '--wait=true']);
    await waitColumn('web', '10.244.0.6:8080');
    await waitSlices('web', [['IPv4', '8080', '10.244.0.6']]);
  });

  it('a headless Service publishing pods not ready lists them, and is labelled headless', async () => {
    await ok(kc(), ['patch', 'pod', 'web-2', '-n', 'shop', '--subresource=status', '--type=merge', '-p', status('10.244.0.6', false)]);
    await waitColumn('web', '');
    await waitColumn('web-hl', '10.244.0.6:8080');
    const labels = await ok(kc(), ['get', 'endpoints', 'web-hl', '-n', 'shop', '-o', 'jsonpath={.metadata.labels}']);
    assert.deepEqual(JSON.parse(labels), { 'service.kubernetes.io/headless': '' });
    const sliceLabels = await ok(kc(), ['get', 'endpointslices', '-n', 'shop', '-l', 'kubernetes.io/service-name=web-hl', '-o', 'jsonpath={.items[0].metadata.labels}']);
    assert.equal(JSON.parse(sliceLabels)['service.kubernetes.io/headless'], '');
  });

  it('a named targetPort no pod has gives no endpoints (and no crash)', async () => {
    await ok(kc(), ['patch', 'pod', 'web-2', '-n', 'shop', '--subresource=status', '--type=merge', '-p', status('10.244.0.6', true)]);
    await waitColumn('web', '10.244.0.6:8080');
    assert.equal(await endpointsColumn('broken'), '<none>');
    assert.equal(await ok(kc(), ['get', 'endpoints', 'broken', '-n', 'shop', '-o', 'jsonpath={.subsets}']), '');
    await waitSlices('broken', [['IPv4', '<unset>', '10.244.0.6']]);
    // The server still answers and other Services still follow their pods.
    assert.match(await ok(kc(), ['get', '--raw', '/readyz']), /^ok/);
  });

  it('user Endpoints of a Service without selector are mirrored into a slice', async () => {
    await ok(kc(), ['create', 'service', 'clusterip', 'external-db', '-n', 'shop', '--tcp=5432:5432']);
    // kubectl create service sets a selector (app=external-db); removing it leaves the endpoints to the user.
    await ok(kc(), ['patch', 'service', 'external-db', '-n', 'shop', '--type=json', '-p', '[{"op":"remove","path":"/spec/selector"}]']);
    await ok(kc(), ['apply', '-f', '-'], 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: external-db, namespace: shop}\nsubsets: [{addresses: [{ip: 192.0.2.10}], ports: [{port: 5432}]}]\n');
    await waitColumn('external-db', '192.0.2.10:5432');
    await until('mirrored', async () => {
      const out = await ok(kc(), ['get', 'endpointslices', '-n', 'shop', '-l', 'endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io', '--no-headers']);
      return /^external-db-[a-z0-9]{5}\s+IPv4\s+5432\s+192\.0\.2\.10\s/.test(out);
    }, 10_000, 50);
  });

  it('deleting a Service removes its Endpoints and slices', async () => {
    await ok(kc(), ['delete', 'service', 'web', '-n', 'shop']);
    await until('endpoints gone', async () => (await kubectl(kc(), ['get', 'endpoints', 'web', '-n', 'shop'])).code !== 0, 10_000, 50);
    await waitSlices('web', []);
  });
});

describe('endpoints left without a Service', () => {
  it('are removed when the controller starts again, as the reference\'s leftover check', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-ep-'));
    let capstan = await startCapstan(join(dir, 'data'));
    try {
      await ok(capstan.kubeconfig, ['apply', '-f', '-'], 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: orphan, namespace: default}\nsubsets: [{addresses: [{ip: 192.0.2.20}], ports: [{port: 80}]}]\n');
      await sleep(300);
      assert.equal((await kubectl(capstan.kubeconfig, ['get', 'endpoints', 'orphan'])).code, 0, 'kept while the controller runs');
      await stopCapstan(capstan);
      capstan = await startCapstan(join(dir, 'data'));
      await until('orphan removed', async () => (await kubectl(capstan.kubeconfig, ['get', 'endpoints', 'orphan'])).code !== 0, 15_000, 100);
      // The API server's own objects are not the controller's to remove.
      assert.equal((await kubectl(capstan.kubeconfig, ['get', 'endpointslice', 'kubernetes'])).code, 0);
    } finally {
      await stopCapstan(capstan);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
