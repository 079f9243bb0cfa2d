// Pod subresources end to end: kubectl debug (ephemeral containers) and kubectl drain (eviction,
// held back by a PodDisruptionBudget).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { until } from '../helpers.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

const node = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
const onNode = (nodeName: string) => JSON.stringify({ spec: { nodeName, terminationGracePeriodSeconds: 0 } });

describe('kubectl debug and drain', () => {
  const suite = capstanForSuite();

  it('kubectl debug adds an ephemeral container to a pod', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['run', 'web', '--image=nginx:1.25']);
    const out = await kubectl(kc, ['debug', 'web', '--image=busybox:1.36', '--container=debugger']);
    assert.equal(out.code, 0, out.stderr);
    const pod = JSON.parse(await ok(kc, ['get', 'pod', 'web', '-o', 'json']));
    assert.deepEqual(pod.spec.ephemeralContainers.map((c: { name: string; image: string }) => [c.name, c.image]), [['debugger', 'busybox:1.36']]);
  });

  it('kubectl drain evicts the pods of a node, and a disruption budget holds them back', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', '-f', '-'], node('node-1'));
    for (const p of ['p1', 'p2']) await ok(kc, ['run', p, '--image=nginx', `--overrides=${onNode('node-1')}`]);
    const drained = await ok(kc, ['drain', 'node-1', '--force', '--timeout=30s']);
    assert.match(drained, /pod\/p1 evicted/);
    assert.match(drained, /node\/node-1 drained/);
    assert.equal((await kubectl(kc, ['get', 'pod', 'p1'])).code, 1, 'evicted pods are gone');
    assert.ok(JSON.parse(await ok(kc, ['get', 'node', 'node-1', '-o', 'json'])).spec.unschedulable, 'cordoned');

    await ok(kc, ['create', '-f', '-'], node('node-2'));
    for (const p of ['q1', 'q2']) {
      await ok(kc, ['run', p, '--image=nginx', '--labels=app=q', `--overrides=${onNode('node-2')}`]);
      await ok(kc, ['patch', 'pod', p, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}']);
    }
    await ok(kc, ['create', 'pdb', 'q', '--selector=app=q', '--min-available=2']);
    await until('the budget observed', async () => JSON.parse(await ok(kc, ['get', 'pdb', 'q', '-o', 'json'])).status?.currentHealthy === 2, 5000, 50);
    const held = await kubectl(kc, ['drain', 'node-2', '--force', '--timeout=2s']);
    assert.notEqual(held.code, 0);
    assert.match(held.stderr, /error when evicting pods\/"q\d" -n "default"/);
    assert.equal(JSON.parse(await ok(kc, ['get', 'pods', '-l', 'app=q', '-o', 'json'])).items.length, 2, 'both pods stay');
  });
});
