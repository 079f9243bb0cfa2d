// Plugins that shape where and how pods and nodes are scheduled: DefaultTolerationSeconds, Priority,
// RuntimeClass and TaintNodesByCondition.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTolerationSeconds } from '../../src/admission/plugins/default-toleration-seconds.js';
import { priority } from '../../src/admission/plugins/priority.js';
import { runtimeClass } from '../../src/admission/plugins/runtime-class.js';
import { taintNodesByCondition } from '../../src/admission/plugins/taint-nodes-by-condition.js';
import { mergeTolerations } from '../../src/admission/plugins/tolerations.js';
import { fixture } from '../helpers.js';
import { admit, attributes, pod, put, refused, testServices } from './support.js';
import { type JsonObject } from '../../src/json.js';

const specOf = (o: JsonObject) => o['spec'] as JsonObject;

describe('DefaultTolerationSeconds admission', () => {
  it('adds the not-ready and unreachable tolerations the reference shows', async () => {
    const services = await testServices();
    const p = pod('p');
    await admit(defaultTolerationSeconds, services, attributes(services, { gvr: '/v1/pods', object: p }));
    const expected = (fixture('create/core-v1-pods').response.body as { spec: JsonObject }).spec['tolerations'];
    assert.deepEqual(specOf(p)['tolerations'], expected);
  });

  it('keeps tolerations that already cover either taint, and adds only the other', async () => {
    const services = await testServices();
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 };
    const p = pod('p', { tolerations: [own] });
    await admit(defaultTolerationSeconds, services, attributes(services, { gvr: '/v1/pods', object: p }));
    assert.deepEqual(specOf(p)['tolerations'], [own, { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]);
    const everything = pod('q', { tolerations: [{ operator: 'Exists' }] });
    await admit(defaultTolerationSeconds, services, attributes(services, { gvr: '/v1/pods', object: everything }));
    assert.deepEqual(specOf(everything)['tolerations'], [{ operator: 'Exists' }]);
  });

  it('ignores subresources', async () => {
    const services = await testServices();
    const p = pod('p');
    await admit(defaultTolerationSeconds, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', subresource: 'status', object: p, oldObject: pod('p') }));
    assert.equal(specOf(p)['tolerations'], undefined);
  });
});

describe('Priority admission', () => {
  it('gives pods priority 0 and PreemptLowerPriority without a default class', async () => {
    const services = await testServices();
    const p = pod('p');
    await admit(priority, services, attributes(services, { gvr: '/v1/pods', object: p }));
    assert.equal(specOf(p)['priority'], 0);
    assert.equal(specOf(p)['preemptionPolicy'], 'PreemptLowerPriority');
    assert.equal(specOf(p)['priorityClassName'], undefined);
  });

  it('resolves a named class, or the global default (the lowest, should there be several)', async () => {
    const services = await testServices();
    await put(services, 'scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' });
    await put(services, 'scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'd1' }, value: 50, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' });
    await put(services, 'scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'd2' }, value: 20, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' });
    const named = pod('p', { priorityClassName: 'high' });
    await admit(priority, services, attributes(services, { gvr: '/v1/pods', object: named }));
    assert.deepEqual([specOf(named)['priority'], specOf(named)['preemptionPolicy']], [1000, 'Never']);
    const unnamed = pod('q');
    await admit(priority, services, attributes(services, { gvr: '/v1/pods', object: unnamed }));
    assert.deepEqual([specOf(unnamed)['priorityClassName'], specOf(unnamed)['priority']], ['d2', 20]);
  });

  it('refuses an unknown class and a priority or policy given by hand that differs', async () => {
    const services = await testServices();
    await put(services, 'scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'PreemptLowerPriority' });
    const run = (spec: JsonObject) => admit(priority, services, attributes(services, { gvr: '/v1/pods', object: pod('p', spec) }));
    await refused(run({ priorityClassName: 'x' }), 403, 'pods "p" is forbidden: no PriorityClass with name x was found');
    await refused(run({ priorityClassName: 'high', priority: 5 }), 403,
      'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name');
    await refused(run({ priorityClassName: 'high', preemptionPolicy: 'Never' }), 403,
      'pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name');
    await run({ priorityClassName: 'high', priority: 1000 });
  });

  it('keeps the resolved priority on update', async () => {
    const services = await testServices();
    const p = pod('p');
    await admit(priority, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', object: p, oldObject: pod('p', { priority: 7, preemptionPolicy: 'Never' }) }));
    assert.deepEqual([specOf(p)['priority'], specOf(p)['preemptionPolicy']], [7, 'Never']);
  });

  it('allows one global default PriorityClass', async () => {
    const services = await testServices();
    await put(services, 'scheduling.k8s.io/v1/priorityclasses', { metadata: { name: 'first' }, value: 1, globalDefault: true });
    const second = { metadata: { name: 'second' }, value: 2, globalDefault: true };
    await refused(admit(priority, services, attributes(services, { gvr: 'scheduling.k8s.io/v1/priorityclasses', object: second })), 403,
      'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist');
    await refused(admit(priority, services, attributes(services, { operation: 'UPDATE', gvr: 'scheduling.k8s.io/v1/priorityclasses', object: second, oldObject: { ...second, globalDefault: false } })), 403,
      /PriorityClass first is already marked as default/);
    // The default itself may be updated, and non-default classes come and go.
    const first = { metadata: { name: 'first' }, value: 1, globalDefault: true, description: 'd' };
    await admit(priority, services, attributes(services, { operation: 'UPDATE', gvr: 'scheduling.k8s.io/v1/priorityclasses', object: first, oldObject: first }));
    await admit(priority, services, attributes(services, { gvr: 'scheduling.k8s.io/v1/priorityclasses', object: { metadata: { name: 'third' }, value: 3 } }));
  });
});

describe('RuntimeClass admission', () => {
  async function withClass(rc: JsonObject) {
    const services = await testServices();
    await put(services, 'node.k8s.io/v1/runtimeclasses', { metadata: { name: 'gvisor' }, handler: 'runsc', ...rc });
    return services;
  }

  it('copies the class overhead and merges its scheduling into the pod', async () => {
    const services = await withClass({
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { sandbox: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    });
    const p = pod('p', { runtimeClassName: 'gvisor', nodeSelector: { zone: 'a' }, tolerations: [{ key: 'x', operator: 'Exists' }] });
    await admit(runtimeClass, services, attributes(services, { gvr: '/v1/pods', object: p }));
    const spec = specOf(p);
    assert.deepEqual(spec['overhead'], { cpu: '250m', memory: '120Mi' });
    assert.deepEqual(spec['nodeSelector'], { zone: 'a', sandbox: 'gvisor' });
    assert.deepEqual(spec['tolerations'], [{ key: 'x', operator: 'Exists' }, { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }]);
  });

  it('refuses unknown classes, selector conflicts and overheads that differ from the class', async () => {
    const services = await withClass({ overhead: { podFixed: { cpu: '250m' } }, scheduling: { nodeSelector: { sandbox: 'gvisor' } } });
    const run = (spec: JsonObject) => admit(runtimeClass, services, attributes(services, { gvr: '/v1/pods', object: pod('p', spec) }));
    await refused(run({ runtimeClassName: 'kata' }), 403, 'pods "p" is forbidden: pod rejected: RuntimeClass "kata" not found');
    await refused(run({ runtimeClassName: 'gvisor', nodeSelector: { sandbox: 'kata' } }), 403,
      'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; pod.spec.nodeSelector[sandbox] = kata');
    await refused(run({ runtimeClassName: 'gvisor', overhead: { cpu: '1' } }), 403, "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    // Equal quantities written differently are the same overhead.
    await run({ runtimeClassName: 'gvisor', overhead: { cpu: '0.25' } });
    await refused(run({ overhead: { cpu: '1' } }), 403, 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  });

  it('merges tolerations, dropping those another one covers', () => {
    const exists = { key: 'k', operator: 'Exists' };
    const equal = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' };
    assert.deepEqual(mergeTolerations([equal], [exists]), [exists]);
    assert.deepEqual(mergeTolerations([exists], [exists]), [exists]);
    const short = { key: 'n', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 };
    const long = { key: 'n', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
    // Tolerating longer covers tolerating for less.
    assert.deepEqual(mergeTolerations([short], [long]), [long]);
  });
});

describe('TaintNodesByCondition admission', () => {
  it('taints new nodes not-ready, as the reference shows', async () => {
    const services = await testServices();
    const node: JsonObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
    await admit(taintNodesByCondition, services, attributes(services, { gvr: '/v1/nodes', object: node }));
    const expected = (fixture('create/core-v1-nodes').response.body as { spec: JsonObject }).spec;
    assert.deepEqual(node['spec'], expected);
  });

  it('does not add the taint twice, nor on update', async () => {
    const services = await testServices();
    const tainted = { metadata: { name: 'n' }, spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: 'x' }] } };
    await admit(taintNodesByCondition, services, attributes(services, { gvr: '/v1/nodes', object: tainted }));
    assert.equal((tainted.spec.taints).length, 1);
    const updated: JsonObject = { metadata: { name: 'n' }, spec: {} };
    await admit(taintNodesByCondition, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/nodes', object: updated, oldObject: updated }));
    assert.deepEqual(updated['spec'], {});
  });
});
