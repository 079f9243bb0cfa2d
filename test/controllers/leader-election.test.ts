// Leader election as kube-controller-manager's: the server takes the kube-controller-manager Lease
// in kube-system, renews it, runs its controllers while it holds it, stops them when a rival holds
// it, and takes it back once the rival's record has stood still for a lease duration.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, sleep, until } from '../helpers.js';

const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

function replicaSet(name: string, replicas: number): object {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

describe('leader election', { timeout: 60_000 }, () => {
  let server: RunningServer;
  const podsOf = async (app: string): Promise<number> => (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`))).json.items.length;

  before(async () => {
    server = await memoryServer({ leaderElect: true, leaderElectLeaseDurationMs: 2_000, leaderElectRenewDeadlineMs: 1_000, leaderElectRetryPeriodMs: 200 });
  });
  after(() => server.close());

  it('holds the kube-controller-manager Lease as kube-controller-manager writes it, renews it, and says so in an Event', async () => {
    const lease = (await mustOk(call(server.url, 'GET', LEASE))).json;
    assert.match(lease.spec.holderIdentity, /^.+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(lease.spec.leaseDurationSeconds, 2);
    assert.equal(lease.spec.leaseTransitions, 0);
    assert.match(lease.spec.acquireTime, MICRO_TIME);
    assert.match(lease.spec.renewTime, MICRO_TIME);
    assert.equal(lease.metadata.managedFields[0].manager, 'kube-controller-manager');
    await until('renewed', async () => (await mustOk(call(server.url, 'GET', LEASE))).json.spec.renewTime !== lease.spec.renewTime, 3_000);
    const events = (await mustOk(call(server.url, 'GET', '/api/v1/namespaces/kube-system/events?fieldSelector=reason%3DLeaderElection'))).json.items;
    assert.equal(events.length, 1);
    assert.equal(events[0].message, `${lease.spec.holderIdentity} became leader`);
    assert.deepEqual([events[0].involvedObject.kind, events[0].involvedObject.name, events[0].source.component], ['Lease', 'kube-controller-manager', 'kube-controller-manager']);
  });

  it('runs the controllers while it leads', async () => {
    await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/default/replicasets', { body: replicaSet('first', 2) }), 201);
    await until('two pods', async () => (await podsOf('first')) === 2);
  });

  it('stops them while a rival holds the Lease, and takes it back once the rival stops renewing', async () => {
    const own = (await mustOk(call(server.url, 'GET', LEASE))).json.spec.holderIdentity as string;
    // The rival takes the Lease (as a candidate whose record went stale would be taken), then renews it.
    let renewing = true;
    const rival = (async () => {
      while (renewing) {
        const current = (await mustOk(call(server.url, 'GET', LEASE))).json;
        const now = new Date().toISOString().replace('Z', '000Z');
        current.spec = { ...current.spec, holderIdentity: 'rival_1', renewTime: now, ...(current.spec.holderIdentity === 'rival_1' ? {} : { acquireTime: now }) };
        await call(server.url, 'PUT', LEASE, { body: current });
        await sleep(150);
      }
    })();
    try {
      await until('the rival holds it', async () => (await mustOk(call(server.url, 'GET', LEASE))).json.spec.holderIdentity === 'rival_1', 3_000);
      // Past the renew deadline the server has stopped leading: a new ReplicaSet gets no pods.
      await sleep(1_500);
      await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/default/replicasets', { body: replicaSet('second', 1) }), 201);
      await sleep(1_000);
      assert.equal(await podsOf('second'), 0);
    } finally {
      renewing = false;
      await rival;
    }
    // The rival's record stands still: after a lease duration the server takes the Lease again.
    const retaken = await until('taken back', async () => {
      const lease = (await mustOk(call(server.url, 'GET', LEASE))).json;
      return lease.spec.holderIdentity === own ? lease : undefined;
    }, 6_000);
    assert.equal(retaken.spec.leaseTransitions, 1);
    await until('the controllers run again', async () => (await podsOf('second')) === 1);
  });
});
