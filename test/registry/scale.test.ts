// The scale subresource of every scalable kind as the reference serves it: autoscaling/v1 Scale with
// zero replicas omitted from spec, and the reference's not-found names for a missing object.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer } from '../helpers.js';

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const labelSelector = { matchLabels: { app: 'a' } };

interface Kind {
  path: string;
  spec: Record<string, unknown>;
  /** The resource and group a GET of a missing object's scale names. */
  missing: { kind: string; group?: string; qualified: string };
  /** What a write to a missing object's scale names (the object itself). */
  missingWrite: { kind: string; group?: string; qualified: string };
}

const KINDS: Record<string, Kind> = {
  deployments: {
    path: '/apis/apps/v1/namespaces/default/deployments', spec: { selector: labelSelector, template },
    missing: { kind: 'deployments/scale', group: 'apps', qualified: 'deployments/scale.apps' },
    missingWrite: { kind: 'deployments', group: 'apps', qualified: 'deployments.apps' },
  },
  statefulsets: {
    path: '/apis/apps/v1/namespaces/default/statefulsets', spec: { serviceName: 's', selector: labelSelector, template },
    missing: { kind: 'statefulsets/scale', group: 'apps', qualified: 'statefulsets/scale.apps' },
    missingWrite: { kind: 'statefulsets', group: 'apps', qualified: 'statefulsets.apps' },
  },
  replicasets: {
    path: '/apis/apps/v1/namespaces/default/replicasets', spec: { selector: labelSelector, template },
    missing: { kind: 'replicasets/scale', group: 'apps', qualified: 'replicasets/scale.apps' },
    missingWrite: { kind: 'replicasets', group: 'apps', qualified: 'replicasets.apps' },
  },
  replicationcontrollers: {
    path: '/api/v1/namespaces/default/replicationcontrollers', spec: { selector: { app: 'a' }, template },
    missing: { kind: 'replicationcontrollers/scale', group: 'autoscaling', qualified: 'replicationcontrollers/scale.autoscaling' },
    missingWrite: { kind: 'replicationcontrollers', qualified: 'replicationcontrollers' },
  },
};

function notFound(name: string, what: { kind: string; group?: string; qualified: string }): unknown {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${what.qualified} "${name}" not found`, reason: 'NotFound',
    details: { name, ...(what.group ? { group: what.group } : {}), kind: what.kind }, code: 404,
  };
}

describe('scale subresource', { timeout: 30_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  for (const [resource, k] of Object.entries(KINDS)) {
    it(`${resource}: zero replicas is spec {} (omitted), others are kept`, async () => {
      const created = await call(server.url, 'POST', k.path, { body: { metadata: { name: 'zero' }, spec: { ...k.spec, replicas: 0 } } });
      assert.equal(created.status, 201, created.text);
      const scale = await call(server.url, 'GET', `${k.path}/zero/scale`);
      assert.equal(scale.status, 200);
      assert.equal(scale.json.kind, 'Scale');
      assert.equal(scale.json.apiVersion, 'autoscaling/v1');
      assert.deepEqual(scale.json.spec, {});
      assert.deepEqual(scale.json.status, { replicas: 0, selector: 'app=a' });
      const two = await call(server.url, 'PUT', `${k.path}/zero/scale`, { body: { ...scale.json, spec: { replicas: 2 } } });
      assert.equal(two.status, 200);
      assert.deepEqual(two.json.spec, { replicas: 2 });
      const merge = { 'Content-Type': 'application/merge-patch+json' };
      const back = await call(server.url, 'PATCH', `${k.path}/zero/scale`, { headers: merge, body: { spec: { replicas: 0 } } });
      assert.equal(back.status, 200);
      assert.deepEqual(back.json.spec, {});
    });

    it(`${resource}: a missing object's scale is not found under the reference's name`, async () => {
      const got = await call(server.url, 'GET', `${k.path}/nope/scale`);
      assert.equal(got.status, 404);
      assert.deepEqual(got.json, notFound('nope', k.missing));
      // A write goes to the object's own store first, which names the object.
      const put = await call(server.url, 'PUT', `${k.path}/nope/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'nope', namespace: 'default' }, spec: { replicas: 1 } } });
      assert.deepEqual(put.json, notFound('nope', k.missingWrite));
    });
  }
});
