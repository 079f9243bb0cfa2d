// Resources served in several versions of one shape (flowcontrol v1beta1 and v1beta2, storage
// v1beta1 and v1 CSIStorageCapacity): one stored object, written through either version and read
// through both, lists and watches included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk } from '../helpers.js';

describe('one object through every served version', { timeout: 20_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(async () => {
    await server.close();
  });

  it('FlowSchema and PriorityLevelConfiguration: flowcontrol v1beta2 and v1beta1', async () => {
    const plc = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', kind: 'PriorityLevelConfiguration', metadata: { name: 'tenant' },
      spec: { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 4, queueLengthLimit: 20 } } } },
    };
    await mustOk(call(server.url, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/prioritylevelconfigurations', { body: plc }), 201);
    const fs = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'FlowSchema', metadata: { name: 'tenant' },
      spec: { priorityLevelConfiguration: { name: 'tenant' }, matchingPrecedence: 900, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'tenants' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], namespaces: ['*'] }] }] },
    };
    await mustOk(call(server.url, 'POST', '/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas', { body: fs }), 201);
    for (const version of ['v1beta1', 'v1beta2']) {
      const got = (await mustOk(call(server.url, 'GET', `/apis/flowcontrol.apiserver.k8s.io/${version}/flowschemas/tenant`))).json;
      assert.equal(got.apiVersion, `flowcontrol.apiserver.k8s.io/${version}`);
      assert.deepEqual(got.spec.rules, fs.spec.rules);
      const level = (await mustOk(call(server.url, 'GET', `/apis/flowcontrol.apiserver.k8s.io/${version}/prioritylevelconfigurations/tenant`))).json;
      assert.equal(level.spec.limited.assuredConcurrencyShares, 5);
      const list = (await mustOk(call(server.url, 'GET', `/apis/flowcontrol.apiserver.k8s.io/${version}/flowschemas`))).json;
      assert.ok(list.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'tenant'));
    }
    // Written back through the other version.
    const old = (await mustOk(call(server.url, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas/tenant'))).json;
    old.spec.matchingPrecedence = 950;
    await mustOk(call(server.url, 'PUT', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas/tenant', { body: old }));
    assert.equal((await mustOk(call(server.url, 'GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas/tenant'))).json.spec.matchingPrecedence, 950);
  });

  it('CSIStorageCapacity: storage v1 and v1beta1', async () => {
    const capacity = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'c1', namespace: 'default' }, storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi' };
    await mustOk(call(server.url, 'POST', '/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities', { body: capacity }), 201);
    const beta = (await mustOk(call(server.url, 'GET', '/apis/storage.k8s.io/v1beta1/namespaces/default/csistoragecapacities/c1'))).json;
    assert.equal(beta.apiVersion, 'storage.k8s.io/v1beta1');
    assert.deepEqual([beta.storageClassName, beta.capacity, beta.maximumVolumeSize], ['fast', '10Gi', '1Gi']);
    beta.capacity = '20Gi';
    await mustOk(call(server.url, 'PUT', '/apis/storage.k8s.io/v1beta1/namespaces/default/csistoragecapacities/c1', { body: beta }));
    assert.equal((await mustOk(call(server.url, 'GET', '/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities/c1'))).json.capacity, '20Gi');
  });
});
