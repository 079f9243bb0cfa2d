// Deployments with the real kubectl, as a new user drives them: create, rollout status (the test
// marks pods Ready through pods/status, standing in for a kubelet), scale, set image, rollout
// history, and rollout undo with two kubectl releases (1.27+ undo client-side by patching the
// template back from the old ReplicaSet).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { capstanForSuite, kubectl, ok } from './harness.js';

const KUBECTL_127 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
const KUBECTL_133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const missing = [KUBECTL_127, KUBECTL_133].filter((k) => !existsSync(k));

describe('deployments with kubectl', { timeout: 180_000 }, () => {
  const capstan = capstanForSuite();
  const kc = () => capstan.current.kubeconfig;

  /** Stands in for a kubelet: pods not ready yet become Running and Ready. */
  async function readyPods(): Promise<void> {
    const pods = JSON.parse(await ok(kc(), ['get', 'pods', '-o', 'json'])).items as any[];
    for (const p of pods) {
      if (p.metadata.deletionTimestamp || p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')) continue;
      const status = { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] } };
      await kubectl(kc(), ['patch', 'pod', p.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
    }
  }

  /** kubectl rollout status while the stand-in kubelet readies pods. */
  async function rolloutStatus(name: string): Promise<string> {
    let done = false;
    const status = kubectl(kc(), ['rollout', 'status', `deployment/${name}`, '--timeout=60s']).finally(() => (done = true));
    while (!done) {
      await readyPods();
      await new Promise((r) => setTimeout(r, 200));
    }
    const r = await status;
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  }

  const replicaSets = async () => (JSON.parse(await ok(kc(), ['get', 'rs', '-l', 'app=web', '-o', 'json'])).items as any[])
    .sort((a, b) => Number(a.metadata.annotations['deployment.kubernetes.io/revision']) - Number(b.metadata.annotations['deployment.kubernetes.io/revision']));
  const imageOf = async () => (await ok(kc(), ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).trim();

  it('create, rollout status, scale, set image, history and undo', { skip: missing.length ? `${missing.join(', ')} absent` : false }, async () => {
    assert.match(await ok(kc(), ['create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=3']), /deployment.apps\/web created/);
    assert.match(await rolloutStatus('web'), /deployment "web" successfully rolled out/);
    const [first] = await replicaSets();
    assert.match(first.metadata.name, /^web-[a-z0-9]+$/);
    assert.equal(first.metadata.name, `web-${first.metadata.labels['pod-template-hash']}`);
    const pods = JSON.parse(await ok(kc(), ['get', 'pods', '-l', 'app=web', '-o', 'json'])).items as any[];
    assert.equal(pods.length, 3);
    assert.ok(pods.every((p) => p.metadata.name.startsWith(`${first.metadata.name}-`)));

    assert.match(await ok(kc(), ['scale', 'deployment', 'web', '--replicas=4']), /deployment.apps\/web scaled/);
    await rolloutStatus('web');
    assert.equal((await replicaSets())[0].spec.replicas, 4);

    await ok(kc(), ['set', 'image', 'deployment/web', 'nginx=nginx:1.26']);
    assert.match(await rolloutStatus('web'), /successfully rolled out/);
    const afterSet = await replicaSets();
    assert.deepEqual(afterSet.map((r) => [r.spec.replicas, r.spec.template.spec.containers[0].image]), [[0, 'nginx:1.25'], [4, 'nginx:1.26']]);

    const history = await ok(kc(), ['rollout', 'history', 'deployment/web']);
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const detail = await ok(kc(), ['rollout', 'history', 'deployment/web', '--revision=1']);
    assert.match(detail, /nginx:1\.25/);

    // kubectl 1.27: undo to the previous revision.
    const undo = await kubectl(kc(), ['rollout', 'undo', 'deployment/web'], undefined, { binary: KUBECTL_127 });
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /deployment.apps\/web rolled back/);
    assert.equal(await imageOf(), 'nginx:1.25');
    await rolloutStatus('web');
    const back = await replicaSets();
    assert.deepEqual(back.map((r) => [r.metadata.name, r.metadata.annotations['deployment.kubernetes.io/revision']]), [[afterSet[1].metadata.name, '2'], [first.metadata.name, '3']]);
    assert.equal(back[1].metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    assert.match(await ok(kc(), ['rollout', 'history', 'deployment/web']), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);

    // kubectl 1.33: undo to a named revision.
    const undo2 = await kubectl(kc(), ['rollout', 'undo', 'deployment/web', '--to-revision=2'], undefined, { binary: KUBECTL_133 });
    assert.equal(undo2.code, 0, undo2.stderr);
    assert.equal(await imageOf(), 'nginx:1.26');
    await rolloutStatus('web');
    const again = await replicaSets();
    assert.deepEqual(again.map((r) => [r.spec.template.spec.containers[0].image, r.spec.replicas, r.metadata.annotations['deployment.kubernetes.io/revision']]), [['nginx:1.25', 0, '3'], ['nginx:1.26', 4, '4']]);
    assert.equal((await ok(kc(), ['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}'])).trim(), '4');

    // What kubectl shows of it: the Deployment ready, and the reference's events.
    assert.match(await ok(kc(), ['get', 'deployment', 'web']), /web\s+4\/4\s+4\s+4\s+/);
    const events = await ok(kc(), ['get', 'events', '--field-selector', 'involvedObject.kind=Deployment', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message,SOURCE:.source.component', '--no-headers']);
    assert.match(events, new RegExp(`ScalingReplicaSet\\s+Scaled up replica set ${first.metadata.name} to 3\\s+deployment-controller`));
    assert.match(events, new RegExp(`ScalingReplicaSet\\s+Scaled down replica set ${first.metadata.name} to 0\\s+deployment-controller`));
    const rsEvents = await ok(kc(), ['get', 'events', '--field-selector', `involvedObject.name=${first.metadata.name}`, '-o', 'custom-columns=REASON:.reason,SOURCE:.source.component', '--no-headers']);
    assert.match(rsEvents, /SuccessfulCreate\s+replicaset-controller/);
    assert.match(rsEvents, /SuccessfulDelete\s+replicaset-controller/);
  });

  it('rollout undo of a paused Deployment is refused by kubectl, and resume rolls on', async () => {
    await ok(kc(), ['create', 'deployment', 'paused', '--image=nginx:1.25', '--replicas=1']);
    await rolloutStatus('paused');
    await ok(kc(), ['set', 'image', 'deployment/paused', 'nginx=nginx:1.26']);
    await rolloutStatus('paused');
    await ok(kc(), ['rollout', 'pause', 'deployment/paused']);
    await ok(kc(), ['set', 'image', 'deployment/paused', 'nginx=nginx:1.27']);
    const undo = await kubectl(kc(), ['rollout', 'undo', 'deployment/paused']);
    assert.notEqual(undo.code, 0);
    assert.match(undo.stderr, /cannot rollback a paused deployment/);
    const progressing = JSON.parse(await ok(kc(), ['get', 'deployment', 'paused', '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")]}']));
    assert.deepEqual([progressing.status, progressing.reason], ['Unknown', 'DeploymentPaused']);
    assert.equal((await ok(kc(), ['get', 'rs', '-l', 'app=paused', '-o', 'name'])).trim().split('\n').length, 2);
    await ok(kc(), ['rollout', 'resume', 'deployment/paused']);
    assert.match(await rolloutStatus('paused'), /successfully rolled out/);
    assert.equal((await ok(kc(), ['get', 'rs', '-l', 'app=paused', '-o', 'name'])).trim().split('\n').length, 3);
  });
});
