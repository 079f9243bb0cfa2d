// StatefulSets and DaemonSets end to end with kubectl: ordered pods and their claims (the test
// marks pods Running and Ready through pods/status, standing in for a kubelet), rollout status
// and history, a DaemonSet's pods on the nodes it may use, and a pod refused by admission.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sleep, until } from '../helpers.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

const STATEFULSET = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web-headless
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`;

const DAEMONSET = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: log-agent
spec:
  selector:
    matchLabels: {app: log-agent}
  template:
    metadata:
      labels: {app: log-agent}
    spec:
      containers:
      - name: fluentd
        image: fluentd:v1.16
`;

const READY = JSON.stringify({ status: { phase: 'Running', podIP: '10.1.0.1', conditions: [{ type: 'Ready', status: 'True' }] } });

describe('StatefulSets and DaemonSets with kubectl', { timeout: 120_000 }, () => {
  const suite = capstanForSuite();
  const exists = async (args: string[]) => (await kubectl(suite.current.kubeconfig, ['get', ...args])).code === 0;
  const markReady = (pod: string) => ok(suite.current.kubeconfig, ['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', READY]);

  it('a StatefulSet makes web-0, then web-1 once web-0 is ready, with their claims', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['apply', '-f', '-'], STATEFULSET);
    await until('web-0', () => exists(['pod', 'web-0']));
    assert.ok(await exists(['pvc', 'www-web-0']));
    await sleep(300);
    assert.equal(await exists(['pod', 'web-1']), false, 'web-1 waits for web-0 to be ready');
    const waiting = await kubectl(kc, ['rollout', 'status', 'statefulset/web', '--watch=false']);
    assert.match(waiting.stdout, /Waiting for 2 pods to be ready/);

    await markReady('web-0');
    await until('web-1', () => exists(['pod', 'web-1']));
    assert.ok(await exists(['pvc', 'www-web-1']));
    await markReady('web-1');
    const status = await ok(kc, ['rollout', 'status', 'statefulset/web', '--timeout=30s']);
    assert.match(status, /partitioned roll out complete: 2 new pods have been updated|statefulset rolling update complete 2 pods at revision web-/);

    const history = await ok(kc, ['rollout', 'history', 'statefulset/web']);
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>/);
    const pods = await ok(kc, ['get', 'pods', '-l', 'app=web', '-o', 'custom-columns=NAME:.metadata.name,HOST:.spec.hostname,SUB:.spec.subdomain,CLAIM:.spec.volumes[0].persistentVolumeClaim.claimName', '--no-headers']);
    assert.deepEqual(pods.trim().split('\n').map((l) => l.split(/\s+/)), [
      ['web-0', 'web-0', 'web-headless', 'www-web-0'],
      ['web-1', 'web-1', 'web-headless', 'www-web-1'],
    ]);
    const events = await ok(kc, ['get', 'events', '--field-selector', 'involvedObject.name=web', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message', '--no-headers']);
    assert.match(events, /SuccessfulCreate\s+create Pod web-0 in StatefulSet web successful/);
    assert.match(events, /SuccessfulCreate\s+create Claim www-web-1 Pod web-1 in StatefulSet web success/);
  });

  it('kubectl rollout history shows a second revision after set image', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['set', 'image', 'statefulset/web', 'nginx=nginx:1.26']);
    await until('web-1 replaced', async () => (await ok(kc, ['get', 'pod', 'web-1', '-o', 'jsonpath={.spec.containers[0].image}', '--ignore-not-found'])) === 'nginx:1.26');
    await markReady('web-1');
    await until('web-0 replaced', async () => (await ok(kc, ['get', 'pod', 'web-0', '-o', 'jsonpath={.spec.containers[0].image}', '--ignore-not-found'])) === 'nginx:1.26');
    await markReady('web-0');
    const status = await ok(kc, ['rollout', 'status', 'statefulset/web', '--timeout=30s']);
    assert.match(status, /complete/);
    const history = await ok(kc, ['rollout', 'history', 'statefulset/web']);
    assert.match(history, /\n1\s+<none>\n2\s+<none>/);
  });

  it('a DaemonSet gets a pod on each ready node and none on a tainted one', async () => {
    const kc = suite.current.kubeconfig;
    for (const name of ['node-1', 'node-2', 'node-3']) {
      await ok(kc, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }));
      // What the node lifecycle controller does for a Ready node: the admission's not-ready taint goes.
      await ok(kc, ['taint', 'nodes', name, 'node.kubernetes.io/not-ready:NoSchedule-']);
    }
    await ok(kc, ['taint', 'nodes', 'node-3', 'dedicated=db:NoSchedule']);
    await ok(kc, ['apply', '-f', '-'], DAEMONSET);
    await until('two daemon pods', async () => (await ok(kc, ['get', 'pods', '-l', 'app=log-agent', '--no-headers'])).trim().split('\n').filter(Boolean).length === 2);
    const targets = await ok(kc, ['get', 'pods', '-l', 'app=log-agent', '-o', 'jsonpath={range .items[*]}{.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]}{"\\n"}{end}']);
    assert.deepEqual(targets.trim().split('\n').sort(), ['node-1', 'node-2']);
    const ds = await until('status', async () => {
      const line = (await ok(kc, ['get', 'ds', 'log-agent', '--no-headers'])).trim().split(/\s+/);
      return line[2] === '2' && line;
    });
    assert.deepEqual(ds.slice(0, 6), ['log-agent', '2', '2', '0', '2', '0']);
    const revisions = await ok(kc, ['get', 'controllerrevisions', '-l', 'app=log-agent', '--no-headers']);
    assert.match(revisions, /^log-agent-\w+\s+daemonset\.apps\/log-agent\s+1\s/);
  });

  it('a StatefulSet whose pod admission refuses records FailedCreate and does not spin', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', 'namespace', 'full']);
    await ok(kc, ['create', 'quota', 'none', '--hard=pods=0', '-n', 'full']);
    await until('quota counted', async () => (await ok(kc, ['get', 'quota', 'none', '-n', 'full', '-o', 'jsonpath={.status.hard.pods}'])) === '0');
    await ok(kc, ['apply', '-n', 'full', '-f', '-'], STATEFULSET);
    const failed = await until('FailedCreate', async () => {
      const out = await ok(kc, ['get', 'events', '-n', 'full', '--field-selector', 'reason=FailedCreate', '-o', 'custom-columns=COUNT:.count,MESSAGE:.message', '--no-headers']);
      return /web-0/.test(out) && out;
    });
    assert.match(failed, /create Pod web-0 in StatefulSet web failed error: .*exceeded quota: none/);
    await sleep(2000);
    const count = Number((await ok(kc, ['get', 'events', '-n', 'full', '--field-selector', 'reason=FailedCreate', '-o', 'jsonpath={.items[?(@.message!="")].count}'])).trim().split(' ').pop());
    assert.ok(count < 20, `retried ${count} times in about 2 s`);
    assert.equal((await ok(kc, ['get', 'pods', '-n', 'full', '--no-headers', '--ignore-not-found'])).trim(), '');
  });
});
