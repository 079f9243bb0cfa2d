// Per-resource preparation the reference's registry strategies do: a DaemonSet's template
// generation, a Job's generated selector and tracking annotation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const GEN = 'deprecated.daemonset.template.generation';

describe('registry strategies', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('a DaemonSet counts template changes in its template-generation annotation', async () => {
    const path = '/apis/apps/v1/namespaces/default/daemonsets';
    const ds = await mustOk(call(server.url, 'POST', path, {
      body: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'fluentd:1' }] } } } },
    }), 201);
    assert.equal(ds.json.metadata.annotations[GEN], '1');
    const labelled = await mustOk(call(server.url, 'PATCH', `${path}/agent`, { body: { metadata: { labels: { tier: 'node' } } }, headers: MERGE }));
    assert.equal(labelled.json.metadata.annotations[GEN], '1', 'not a template change');
    const rolled = await mustOk(call(server.url, 'PATCH', `${path}/agent`, { body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'fluentd:2' }] } } } }, headers: MERGE }));
    assert.equal(rolled.json.metadata.annotations[GEN], '2');
    assert.equal(rolled.json.metadata.generation, 2);
  });

  it('a Job selects its pods by its uid, unless it asks for a manual selector', async () => {
    const path = '/apis/batch/v1/namespaces/default/jobs';
    const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
    const job = await mustOk(call(server.url, 'POST', path, { body: { metadata: { name: 'auto' }, spec: { template } } }), 201);
    const uid = job.json.metadata.uid;
    assert.deepEqual(job.json.spec.selector, { matchLabels: { 'controller-uid': uid } });
    assert.deepEqual(job.json.spec.template.metadata.labels, { 'controller-uid': uid, 'job-name': 'auto' });
    assert.deepEqual(job.json.metadata.labels, { 'controller-uid': uid, 'job-name': 'auto' });
    assert.equal(job.json.metadata.annotations['batch.kubernetes.io/job-tracking'], '');
    const manual = await mustOk(call(server.url, 'POST', path, {
      body: { metadata: { name: 'manual' }, spec: { manualSelector: true, selector: { matchLabels: { run: 'manual' } }, template: { ...template, metadata: { labels: { run: 'manual' } } } } },
    }), 201);
    assert.deepEqual(manual.json.spec.selector, { matchLabels: { run: 'manual' } });
    assert.deepEqual(manual.json.spec.template.metadata.labels, { run: 'manual' });
  });

  it('a Deployment counts annotation changes as a new generation (they are copied to its ReplicaSets)', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const template = { metadata: { labels: { app: 'gen' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } };
    await mustOk(call(server.url, 'POST', path, { body: { metadata: { name: 'gen' }, spec: { selector: { matchLabels: { app: 'gen' } }, template } } }), 201);
    const annotated = await mustOk(call(server.url, 'PATCH', `${path}/gen`, { body: { metadata: { annotations: { note: 'x' } } }, headers: MERGE }));
    assert.equal(annotated.json.metadata.generation, 2);
    const labelled = await mustOk(call(server.url, 'PATCH', `${path}/gen`, { body: { metadata: { labels: { tier: 'web' } } }, headers: MERGE }));
    assert.equal(labelled.json.metadata.generation, 2, 'labels are not copied: no new generation');
  });
});
