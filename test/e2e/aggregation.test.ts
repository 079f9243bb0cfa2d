// The aggregation layer end to end: the real capstan command, the real kubectl, and a small
// metrics-server stand-in registered by an APIService: `kubectl get apiservices`, `kubectl top`,
// and a WebSocket stream of @kubernetes/client-node through the proxy.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { call, kubeconfigTls, mustOk, until, type ClientTls } from '../helpers.js';
import { ExtensionServer, nodeMetrics, podMetrics } from '../aggregator/extension-server.js';
import { availableOf, NAMESPACE, registerExtension, SERVICE } from '../aggregator/register.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

/** The built-in APIServices kube-apiserver 1.25 keeps with its default --runtime-config. */
const REFERENCE_LOCAL = [
  'v1.', 'v1.admissionregistration.k8s.io', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.authentication.k8s.io', 'v1.authorization.k8s.io',
  'v1.autoscaling', 'v1.batch', 'v1.certificates.k8s.io', 'v1.coordination.k8s.io', 'v1.discovery.k8s.io', 'v1.events.k8s.io',
  'v1.networking.k8s.io', 'v1.node.k8s.io', 'v1.policy', 'v1.rbac.authorization.k8s.io', 'v1.scheduling.k8s.io', 'v1.storage.k8s.io',
  'v1beta1.flowcontrol.apiserver.k8s.io', 'v1beta1.storage.k8s.io', 'v1beta2.flowcontrol.apiserver.k8s.io', 'v2.autoscaling', 'v2beta2.autoscaling',
];

describe('aggregation end to end (kubectl)', { timeout: 120_000 }, () => {
  const capstan = capstanForSuite();
  let base: string;
  let tls: ClientTls;
  let ext: ExtensionServer;

  before(async () => {
    const kubeconfig = capstan.current.kubeconfig;
    base = /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))![1]!;
    tls = kubeconfigTls(kubeconfig);
    const cm = await mustOk(call(base, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', { tls }));
    ext = await ExtensionServer.create({
      requestheaderCa: cm.json.data['requestheader-client-ca-file'],
      allowedNames: JSON.parse(cm.json.data['requestheader-allowed-names']),
      knownUsers: ['kubernetes-admin', 'system:kube-aggregator'],
      serviceName: `${SERVICE}.${NAMESPACE}.svc`,
    });
    ext.nodes = [nodeMetrics('node-a', '250m', '1024Mi'), nodeMetrics('node-b', '1500m', '2048Mi')];
    ext.pods = [podMetrics('default', 'web-1', '12m', '34Mi'), podMetrics('default', 'web-2', '7m', '21Mi')];
    await ext.listen();
    for (const name of ['node-a', 'node-b']) {
      await mustOk(call(base, 'POST', '/api/v1/nodes', { tls, body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } }), 201);
      // What a kubelet reports: the node's capacity, through its status.
      await mustOk(call(base, 'PATCH', `/api/v1/nodes/${name}/status`, {
        tls, headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { capacity: { cpu: '2', memory: '4Gi' }, allocatable: { cpu: '2', memory: '4Gi' } } },
      }));
    }
    await registerExtension(base, tls, ext);
    await until('the APIService is Available', async () => (await availableOf(base, tls, 'v1beta1.metrics.k8s.io'))?.status === 'True', 20_000);
  });

  after(async () => {
    await ext?.close();
  });

  it('kubectl get apiservices prints the reference\'s rows, and the remote one', async () => {
    const out = await ok(capstan.current.kubeconfig, ['get', 'apiservices']);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const local = rows.slice(1).filter((r) => r[1] === 'Local');
    assert.deepEqual(local.map((r) => r[0]), REFERENCE_LOCAL);
    assert.ok(local.every((r) => r[2] === 'True'));
    const remote = rows.find((r) => r[0] === 'v1beta1.metrics.k8s.io');
    assert.deepEqual(remote?.slice(1, 3), [`${NAMESPACE}/${SERVICE}`, 'True']);
  });

  it('kubectl top pods prints the extension\'s figures', async () => {
    const out = await ok(capstan.current.kubeconfig, ['top', 'pods', '-n', 'default']);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ['NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    assert.deepEqual(rows.slice(1), [['web-1', '12m', '34Mi'], ['web-2', '7m', '21Mi']]);
  });

  it('kubectl top nodes prints the extension\'s figures against the Nodes\' allocatable', async () => {
    const out = await ok(capstan.current.kubeconfig, ['top', 'nodes']);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)']);
    assert.deepEqual(rows.slice(1), [['node-a', '250m', '12%', '1024Mi', '25%'], ['node-b', '1500m', '75%', '2048Mi', '50%']], out);
  });

  it('@kubernetes/client-node opens a WebSocket stream through capstan to the extension server', async () => {
    const k8s = await import('@kubernetes/client-node');
    // The handler its Exec and Attach use (not exported from the package's index).
    const { WebSocketHandler } = await import('@kubernetes/client-node/dist/web-socket-handler.js');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(capstan.current.kubeconfig);
    const stdout: string[] = [];
    const ws = await new WebSocketHandler(kc).connect('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1/exec?command=sh&stdin=true&stdout=true', null, (stream: number, data: Buffer) => {
      if (stream === 1) stdout.push(data.toString('utf8'));
      return true;
    });
    try {
      await until('the extension\'s greeting', () => stdout.includes('hello kubernetes-admin'), 5_000);
      ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('ping')]));
      await until('stdin written back', () => stdout.includes('echo:ping'), 5_000);
    } finally {
      ws.close();
    }
  });

  it('kubectl top says the Metrics API is not available once the extension stops', async () => {
    await ext.close();
    // A request that cannot reach it has the availability checked again at once (else: within 30 s).
    assert.equal((await call(base, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes', { tls })).status, 503);
    await until('unavailable', async () => (await availableOf(base, tls, 'v1beta1.metrics.k8s.io'))?.status === 'False', 20_000);
    const r = await kubectl(capstan.current.kubeconfig, ['top', 'pods', '-n', 'default']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Metrics API not available/);
    await ext.listen();
    // The restarted server's Endpoints change (as a restarted pod's do), which has it checked again.
    await mustOk(call(base, 'PATCH', `/api/v1/namespaces/${NAMESPACE}/endpoints/${SERVICE}`, {
      tls, headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { annotations: { restarted: String(Date.now()) } } },
    }));
    await until('available again', async () => (await availableOf(base, tls, 'v1beta1.metrics.k8s.io'))?.status === 'True', 20_000);
    await ok(capstan.current.kubeconfig, ['top', 'pods', '-n', 'default']);
  });
});
