// API Priority and Fairness as a client sees it: the bootstrap configuration kept, requests
// classified (the X-Kubernetes-PF-* headers), a flood from an unprivileged user refused with the
// reference's 429 while system:masters is served, a light flow not starved by a heavy one in the
// same priority level, watches holding no seat once started, the Dangling condition, the
// apiserver_flowcontrol_* metrics, and the max-in-flight limits in its place with the gate off.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningServer, ServerOptions } from '../../src/server/server.js';
import { call, memoryServer, until, type Reply } from '../helpers.js';

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1beta2';
/** A list that waits for a revision that never comes: it holds its seat for the store's 3 s wait. */
const SLOW = '/api/v1/namespaces/default/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan';
const as = (user: string) => ({ headers: { 'Impersonate-User': user } });

async function mustOk(reply: Promise<Reply>, status = 200): Promise<Reply> {
  const r = await reply;
  assert.equal(r.status, status, r.text);
  return r;
}

/** Lets `users` read configmaps (so that their slow lists get past authorization). */
async function grantConfigMapReads(server: RunningServer, users: string[]): Promise<void> {
  await mustOk(call(server.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    body: { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] },
  }), 201);
  await mustOk(call(server.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { metadata: { name: 'cm-readers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' }, subjects: users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })) },
  }), 201);
}

/** A priority level and a FlowSchema sending `users` to it. */
async function levelFor(server: RunningServer, name: string, users: string[], limitResponse: unknown): Promise<void> {
  await mustOk(call(server.url, 'POST', `${FC}/prioritylevelconfigurations`, {
    body: { metadata: { name }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse } } },
  }), 201);
  await mustOk(call(server.url, 'POST', `${FC}/flowschemas`, {
    body: {
      metadata: { name }, spec: {
        priorityLevelConfiguration: { name }, matchingPrecedence: 50, distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: users.map((u) => ({ kind: 'User', user: { name: u } })), resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
      },
    },
  }), 201);
}

/** Waits until the configuration in force classifies `user`'s requests to the FlowSchema named `schema`. */
async function classifiedTo(server: RunningServer, user: string, schema: string): Promise<void> {
  const uid = (await mustOk(call(server.url, 'GET', `${FC}/flowschemas/${schema}`))).json.metadata.uid;
  await until(`${user} classified to ${schema}`, async () => (await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps/none', as(user))).headers['x-kubernetes-pf-flowschema-uid'] === uid);
}

function sample(metrics: string, line: string): number | undefined {
  const found = metrics.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('API Priority and Fairness', { timeout: 90_000 }, () => {
  it('creates the bootstrap configuration of 1.25, with the autoupdate annotation and Dangling conditions', async () => {
    const server = await memoryServer();
    try {
      const fs = (await mustOk(call(server.url, 'GET', `${FC}/flowschemas`))).json.items;
      const rows = fs.map((o: any) => [o.metadata.name, o.spec.priorityLevelConfiguration.name, o.spec.matchingPrecedence, o.spec.distinguisherMethod?.type ?? '<none>'].join(' '));
      assert.deepEqual(rows, [
        'catch-all catch-all 10000 ByUser', 'endpoint-controller workload-high 150 ByUser', 'exempt exempt 1 <none>', 'global-default global-default 9900 ByUser',
        'kube-controller-manager workload-high 800 ByNamespace', 'kube-scheduler workload-high 800 ByNamespace', 'kube-system-service-accounts workload-high 900 ByNamespace',
        'probes exempt 2 <none>', 'service-accounts workload-low 9000 ByUser', 'system-leader-election leader-election 100 ByUser', 'system-node-high node-high 400 ByUser',
        'system-nodes system 500 ByUser', 'workload-leader-election leader-election 200 ByUser',
      ]);
      for (const o of fs) {
        assert.equal(o.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'true');
        assert.deepEqual(o.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
          ['Dangling', 'False', 'Found', `This FlowSchema references the PriorityLevelConfiguration object named "${o.spec.priorityLevelConfiguration.name}" and it exists`],
        ]);
        assert.deepEqual(o.metadata.managedFields.map((m: any) => [m.manager, m.operation, m.subresource ?? '']).sort(), [
          ['api-priority-and-fairness-config-consumer-v1', 'Update', 'status'], ['api-priority-and-fairness-config-producer-v1', 'Update', ''],
        ]);
      }
      const pl = (await mustOk(call(server.url, 'GET', `${FC}/prioritylevelconfigurations`))).json.items;
      assert.deepEqual(pl.map((o: any) => [o.metadata.name, o.spec.type, o.spec.limited?.assuredConcurrencyShares, o.spec.limited?.limitResponse.type, o.spec.limited?.limitResponse.queuing]), [
        ['catch-all', 'Limited', 5, 'Reject', undefined], ['exempt', 'Exempt', undefined, undefined, undefined],
        ['global-default', 'Limited', 20, 'Queue', { queues: 128, handSize: 6, queueLengthLimit: 50 }],
        ['leader-election', 'Limited', 10, 'Queue', { queues: 16, handSize: 4, queueLengthLimit: 50 }],
        ['node-high', 'Limited', 40, 'Queue', { queues: 64, handSize: 6, queueLengthLimit: 50 }],
        ['system', 'Limited', 30, 'Queue', { queues: 64, handSize: 6, queueLengthLimit: 50 }],
        ['workload-high', 'Limited', 40, 'Queue', { queues: 128, handSize: 6, queueLengthLimit: 50 }],
        ['workload-low', 'Limited', 100, 'Queue', { queues: 128, handSize: 6, queueLengthLimit: 50 }],
      ]);
      // The post-start hooks of the reference, ready.
      const ready = (await mustOk(call(server.url, 'GET', '/readyz?verbose'))).text;
      for (const hook of ['priority-and-fairness-config-consumer', 'priority-and-fairness-filter', 'priority-and-fairness-config-producer']) assert.match(ready, new RegExp(`^\\[\\+\\]poststarthook/${hook} ok$`, 'm'));
    } finally {
      await server.close();
    }
  });

  it('keeps the configuration: mandatory objects restored, suggested ones as their annotation says, unknown auto-updated ones deleted', async () => {
    const server = await memoryServer({ apfBootstrapPeriodMs: 200 });
    try {
      await mustOk(call(server.url, 'DELETE', `${FC}/flowschemas/catch-all`));
      await mustOk(call(server.url, 'DELETE', `${FC}/prioritylevelconfigurations/exempt`));
      const exemptPl = await mustOk(call(server.url, 'GET', `${FC}/prioritylevelconfigurations/catch-all`));
      exemptPl.json.spec.limited.assuredConcurrencyShares = 99;
      exemptPl.json.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] = 'false';
      await mustOk(call(server.url, 'PUT', `${FC}/prioritylevelconfigurations/catch-all`, { body: exemptPl.json }));
      // A suggested object its owner took over (annotation false) keeps its changes; one left auto-updated is put back.
      for (const [name, annotation] of [['global-default', 'false'], ['workload-low', 'true']] as const) {
        const pl = (await mustOk(call(server.url, 'GET', `${FC}/prioritylevelconfigurations/${name}`))).json;
        pl.spec.limited.assuredConcurrencyShares = 7;
        pl.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] = annotation;
        await mustOk(call(server.url, 'PUT', `${FC}/prioritylevelconfigurations/${name}`, { body: pl }));
      }
      await mustOk(call(server.url, 'POST', `${FC}/prioritylevelconfigurations`, {
        body: { metadata: { name: 'stray', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 3, limitResponse: { type: 'Reject' } } } },
      }), 201);
      await until('the catch-all FlowSchema back', async () => (await call(server.url, 'GET', `${FC}/flowschemas/catch-all`)).status === 200, 5_000);
      await until('the exempt level back', async () => (await call(server.url, 'GET', `${FC}/prioritylevelconfigurations/exempt`)).status === 200, 5_000);
      await until('the catch-all level restored', async () => {
        const o = (await call(server.url, 'GET', `${FC}/prioritylevelconfigurations/catch-all`)).json;
        return o.spec.limited.assuredConcurrencyShares === 5 && o.metadata.annotations['apf.kubernetes.io/autoupdate-spec'] === 'true';
      }, 5_000);
      await until('workload-low restored', async () => (await call(server.url, 'GET', `${FC}/prioritylevelconfigurations/workload-low`)).json.spec.limited.assuredConcurrencyShares === 100, 5_000);
      await until('the stray level deleted', async () => (await call(server.url, 'GET', `${FC}/prioritylevelconfigurations/stray`)).status === 404, 5_000);
      const kept = (await mustOk(call(server.url, 'GET', `${FC}/prioritylevelconfigurations/global-default`))).json;
      assert.equal(kept.spec.limited.assuredConcurrencyShares, 7);
      assert.equal(kept.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'false');
    } finally {
      await server.close();
    }
  });

  it('answers with the UIDs of the FlowSchema and priority level a request was classified to', async () => {
    const server = await memoryServer();
    try {
      const uid = async (kind: string, name: string) => (await mustOk(call(server.url, 'GET', `${FC}/${kind}/${name}`))).json.metadata.uid;
      const check = async (r: Reply, schema: string, level: string) => {
        assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], await uid('flowschemas', schema), `${schema}`);
        assert.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], await uid('prioritylevelconfigurations', level), `${level}`);
      };
      // The loopback administrator is in system:masters.
      await check(await call(server.url, 'GET', '/api/v1/namespaces'), 'exempt', 'exempt');
      // Refused by authorization, which comes after classification: the headers are there.
      const bob = await call(server.url, 'GET', '/api/v1/namespaces', as('bob'));
      assert.equal(bob.status, 403);
      await check(bob, 'global-default', 'global-default');
      await check(await call(server.url, 'GET', '/healthz', as('bob')), 'probes', 'exempt');
      // A URL covers what is under it.
      await check(await call(server.url, 'GET', '/readyz/etcd', as('bob')), 'probes', 'exempt');
      await check(await call(server.url, 'GET', '/version', as('bob')), 'global-default', 'global-default');
      await check(await call(server.url, 'GET', '/api/v1/nodes', { headers: { 'Impersonate-User': 'system:node:n1', 'Impersonate-Group': 'system:nodes' } }), 'system-node-high', 'node-high');
      await check(await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { headers: { 'Impersonate-User': 'system:node:n1', 'Impersonate-Group': 'system:nodes' } }), 'system-nodes', 'system');
      // The same user's same request again, without the group and then with it: classified by the groups it has each time.
      await check(await call(server.url, 'GET', '/api/v1/namespaces/default/pods', as('system:node:n1')), 'global-default', 'global-default');
      await check(await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { headers: { 'Impersonate-User': 'system:node:n1', 'Impersonate-Group': 'system:nodes' } }), 'system-nodes', 'system');
      // And in another namespace, or of another verb.
      await check(await call(server.url, 'GET', '/api/v1/namespaces/kube-system/pods', { headers: { 'Impersonate-User': 'system:node:n1', 'Impersonate-Group': 'system:nodes' } }), 'system-nodes', 'system');
      await check(await call(server.url, 'GET', '/api/v1/nodes', { headers: { 'Impersonate-User': 'system:node:n1', 'Impersonate-Group': 'system:nodes' } }), 'system-node-high', 'node-high');
      await check(await call(server.url, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x', { headers: { 'Impersonate-User': 'system:kube-scheduler' }, body: {} }), 'system-leader-election', 'leader-election');
      await check(await call(server.url, 'GET', '/api/v1/namespaces/default/pods', as('system:serviceaccount:kube-system:job-controller')), 'kube-system-service-accounts', 'workload-high');
      await check(await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { headers: { 'Impersonate-User': 'system:serviceaccount:team:app', 'Impersonate-Group': 'system:serviceaccounts' } }), 'service-accounts', 'workload-low');
    } finally {
      await server.close();
    }
  });

  it('answers a flood from an unprivileged user 429 with Retry-After, and system:masters still gets answers', async () => {
    // One seat for the whole server: each Limited level gets one.
    const server = await memoryServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 });
    try {
      await grantConfigMapReads(server, ['flooder']);
      await levelFor(server, 'tiny', ['flooder'], { type: 'Reject' });
      await classifiedTo(server, 'flooder', 'tiny');
      const slow = call(server.url, 'GET', SLOW, as('flooder'));
      await new Promise((r) => setTimeout(r, 300));
      const refused = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', as('flooder'));
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(refused.text, 'Too many requests, please try again later.\n');
      assert.ok(refused.headers['x-kubernetes-pf-flowschema-uid']);
      // The administrator (system:masters, exempt) is served meanwhile.
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
      assert.equal((await slow).status, 504);
      await until('the seat free again', async () => (await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', as('flooder'))).status === 200, 5_000);
      const metrics = (await mustOk(call(server.url, 'GET', '/metrics'))).text;
      assert.equal(sample(metrics, 'apiserver_flowcontrol_rejected_requests_total{flow_schema="tiny",priority_level="tiny",reason="concurrency-limit"}'), 1);
      assert.ok(sample(metrics, 'apiserver_flowcontrol_dispatched_requests_total{flow_schema="tiny",priority_level="tiny"}')! >= 3);
      assert.equal(sample(metrics, 'apiserver_flowcontrol_request_concurrency_limit{priority_level="tiny"}'), 1);
      assert.equal(sample(metrics, 'apiserver_flowcontrol_current_executing_requests{flow_schema="tiny",priority_level="tiny"}'), 0);
      assert.equal(sample(metrics, 'apiserver_flowcontrol_current_inqueue_requests{flow_schema="tiny",priority_level="tiny"}'), 0);
      assert.equal(sample(metrics, 'apiserver_flowcontrol_request_wait_duration_seconds_count{execute="false",flow_schema="tiny",priority_level="tiny"}'), 1);
      assert.ok(sample(metrics, 'apiserver_flowcontrol_request_execution_seconds_count{flow_schema="exempt",priority_level="exempt",type="regular"}')! >= 1);
      assert.equal(sample(metrics, 'apiserver_flowcontrol_request_concurrency_limit{priority_level="exempt"}'), undefined, 'Exempt levels have no limit');
    } finally {
      await server.close();
    }
  });

  it('queues fairly: a light flow is served before a heavy flow\'s backlog; a full queue answers 429', async () => {
    const server = await memoryServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 });
    try {
      await grantConfigMapReads(server, ['heavy', 'light']);
      await levelFor(server, 'shared', ['heavy', 'light'], { type: 'Queue', queuing: { queues: 64, handSize: 1, queueLengthLimit: 2 } });
      await classifiedTo(server, 'light', 'shared');
      const started = performance.now();
      const done: Record<string, number> = {};
      const heavy = [0, 1, 2].map((i) => call(server.url, 'GET', SLOW, as('heavy')).then((r) => ((done[`heavy${i}`] = performance.now() - started), r)));
      await new Promise((r) => setTimeout(r, 300));
      // One runs and two wait in heavy's queue, which is now full.
      const overflow = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', as('heavy'));
      assert.equal(overflow.status, 429);
      assert.equal(overflow.headers['retry-after'], '1');
      const light = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', as('light'));
      done['light'] = performance.now() - started;
      assert.equal(light.status, 200);
      const replies = await Promise.all(heavy);
      for (const r of replies) assert.equal(r.status, 504);
      // Served after the first heavy request (3 s), before the second (6 s) — not behind the whole backlog.
      assert.ok(done['light']! < done['heavy1']! && done['light']! < done['heavy2']!, JSON.stringify(done));
      const metrics = (await mustOk(call(server.url, 'GET', '/metrics'))).text;
      assert.equal(sample(metrics, 'apiserver_flowcontrol_rejected_requests_total{flow_schema="shared",priority_level="shared",reason="queue-full"}'), 1);
      assert.equal(sample(metrics, 'apiserver_flowcontrol_request_queue_length_after_enqueue_count{flow_schema="shared",priority_level="shared"}'), 3);
    } finally {
      await server.close();
    }
  });

  it('keeps the timing ratio histograms of each level and of read/write requests, and the dispatch gauges', async () => {
    const server = await memoryServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 });
    try {
      await grantConfigMapReads(server, ['busy']);
      await levelFor(server, 'narrow', ['busy'], { type: 'Queue', queuing: { queues: 4, handSize: 1, queueLengthLimit: 5 } });
      await classifiedTo(server, 'busy', 'narrow');
      const scrape = async () => (await mustOk(call(server.url, 'GET', '/metrics'))).text;
      const level = 'priority_level="narrow"';
      // One slow list holds the level's only seat (3 s), two more wait in its queue.
      const slow = [0, 1, 2].map(() => call(server.url, 'GET', SLOW, as('busy')));
      await new Promise((r) => setTimeout(r, 400));
      const during = await scrape();
      await new Promise((r) => setTimeout(r, 400));
      const later = await scrape();
      // Time counts in nanoseconds: 400 ms of observations between two scrapes, all in the buckets.
      const grew = (name: string, labels: string) => sample(later, `${name}_count{${labels}}`)! - sample(during, `${name}_count{${labels}}`)!;
      const seats = 'apiserver_flowcontrol_priority_level_seat_utilization';
      const requests = 'apiserver_flowcontrol_priority_level_request_utilization';
      const readWrite = 'apiserver_flowcontrol_read_vs_write_current_requests';
      for (const [name, labels] of [[seats, `phase="executing",${level}`], [requests, `phase="waiting",${level}`], [readWrite, 'phase="waiting",request_kind="readOnly"']] as const) {
        const ns = grew(name, labels);
        assert.ok(ns > 300e6 && ns < 2e9, `${name}{${labels}} counted ${ns} ns in 400 ms`);
        assert.equal(sample(later, `${name}_bucket{${labels},le="+Inf"}`), sample(later, `${name}_count{${labels}}`));
      }
      // The one seat of one is taken all that time: every nanosecond at 1, above the 0.99 bucket.
      const at = (text: string, le: string) => sample(text, `${seats}_bucket{phase="executing",${level},le="${le}"}`)!;
      assert.equal(at(later, '0.99') - at(during, '0.99'), 0);
      assert.ok(at(later, '1') - at(during, '1') > 300e6);
      // Two waiting of the queues' room of 4 × 5: 0.1, in the bucket le="0.1" and not below it.
      const sumGrew = sample(later, `${requests}_sum{phase="waiting",${level}}`)! - sample(during, `${requests}_sum{phase="waiting",${level}}`)!;
      assert.ok(Math.abs(sumGrew / grew(requests, `phase="waiting",${level}`) - 0.1) < 0.02, String(sumGrew));
      // The waiting read-only requests are a share of every limited level's queues' room.
      assert.ok(sample(later, `${readWrite}_sum{phase="waiting",request_kind="readOnly"}`)! > sample(during, `${readWrite}_sum{phase="waiting",request_kind="readOnly"}`)!, later.split("\n").filter((l) => l.startsWith(readWrite)).join("\n"));
      // The exempt level is shown too, at zero all along.
      assert.equal(sample(later, `${seats}_bucket{phase="executing",priority_level="exempt",le="0"}`), sample(later, `${seats}_count{phase="executing",priority_level="exempt"}`));
      assert.match(later, new RegExp(`# HELP ${seats} EXPERIMENTAL: \\[ALPHA\\] Observations, at the end of every nanosecond, of utilization of seats`));
      assert.match(later, new RegExp(`# TYPE ${readWrite} histogram`));
      // The dispatch gauges, in seat-seconds, of the levels that queue (not the exempt one, nor catch-all, which rejects).
      for (const none of ['exempt', 'catch-all']) assert.equal(sample(later, `apiserver_flowcontrol_dispatch_r{priority_level="${none}"}`), undefined);
      for (const r of await Promise.all(slow)) assert.equal(r.status, 504);
      const after = await scrape();
      const r = sample(after, `apiserver_flowcontrol_dispatch_r{${level}}`)!;
      assert.ok(r > 0 && r <= sample(after, `apiserver_flowcontrol_current_r{${level}}`)!, after.split('\n').filter((l) => l.includes('_r{') || l.includes('_s')).join('\n'));
      assert.ok(sample(after, `apiserver_flowcontrol_latest_s{${level}}`)! > 0);
      const min = sample(after, `apiserver_flowcontrol_next_s_bounds{bound="min",${level}}`)!;
      assert.ok(min <= sample(after, `apiserver_flowcontrol_next_s_bounds{bound="max",${level}}`)!);
      assert.ok(sample(after, `apiserver_flowcontrol_next_discounted_s_bounds{bound="min",${level}}`)! <= min);
    } finally {
      await server.close();
    }
  });

  it('classifies watches, which hold their seat only while they start', async () => {
    const server = await memoryServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 });
    try {
      await grantConfigMapReads(server, ['watcher']);
      await levelFor(server, 'tiny', ['watcher'], { type: 'Reject' });
      await classifiedTo(server, 'watcher', 'tiny');
      const watch = call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=2', as('watcher'));
      await new Promise((r) => setTimeout(r, 300));
      // The watch streams on; its seat is free for the next request.
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', as('watcher'))).status, 200);
      const w = await watch;
      assert.equal(w.status, 200);
      assert.equal(w.headers['x-kubernetes-pf-flowschema-uid'], (await mustOk(call(server.url, 'GET', `${FC}/flowschemas/tiny`))).json.metadata.uid);
      const metrics = (await mustOk(call(server.url, 'GET', '/metrics'))).text;
      assert.equal(sample(metrics, 'apiserver_flowcontrol_request_execution_seconds_count{flow_schema="tiny",priority_level="tiny",type="watch"}'), 1);
    } finally {
      await server.close();
    }
  });

  it('makes a write reaching many watches wider (its watch count and estimated seats in the metrics), and keeps the virtual time', async () => {
    const server = await memoryServer();
    try {
      await mustOk(call(server.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        body: { metadata: { name: 'cm-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] },
      }), 201);
      await mustOk(call(server.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        body: { metadata: { name: 'cm-writers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-writer' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'writer' }] },
      }), 201);
      // 25 watches of the namespace's ConfigMaps (and of every namespace's): a write there reaches them all.
      const watches = Array.from({ length: 25 }, (_, i) => call(server.url, 'GET', `/api/v1/${i % 5 === 0 ? '' : 'namespaces/default/'}configmaps?watch=true&timeoutSeconds=2`));
      await new Promise((r) => setTimeout(r, 500));
      await mustOk(call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'watched' } }, ...as('writer') }), 201);
      for (const w of await Promise.all(watches)) assert.equal(w.status, 200);
      const metrics = (await mustOk(call(server.url, 'GET', '/metrics'))).text;
      const pair = 'flow_schema="global-default",priority_level="global-default"';
      assert.equal(sample(metrics, `apiserver_flowcontrol_watch_count_samples_count{${pair}}`), 1);
      assert.equal(sample(metrics, `apiserver_flowcontrol_watch_count_samples_sum{${pair}}`), 25);
      // ⌈25 / 10⌉ = 3 seats (after it: the final seats); the level's maximum is 8 (15% of its 49).
      const bucket = (le: string) => Number(metrics.split('\n').find((l) => l.startsWith('apiserver_flowcontrol_work_estimated_seats_bucket{') && l.includes(pair) && l.includes(`le="${le}"`))?.split(' ')[1]);
      assert.equal(bucket('4') - bucket('2'), 1, metrics.split('\n').filter((l) => l.includes('work_estimated_seats')).join('\n'));
      assert.ok(sample(metrics, 'apiserver_flowcontrol_current_r{priority_level="global-default"}')! > 0);
      assert.equal(sample(metrics, `apiserver_flowcontrol_request_concurrency_in_use{${pair}}`), 0, 'every seat given back');
    } finally {
      await server.close();
    }
  });

  it('sets Dangling on a FlowSchema whose priority level is missing, and clears it once the level exists', async () => {
    const server = await memoryServer();
    try {
      await mustOk(call(server.url, 'POST', `${FC}/flowschemas`, {
        body: { metadata: { name: 'orphan' }, spec: { priorityLevelConfiguration: { name: 'later' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'x' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] } },
      }), 201);
      const condition = async () => (await call(server.url, 'GET', `${FC}/flowschemas/orphan`)).json.status?.conditions?.[0];
      const dangling = await until('Dangling True', async () => ((await condition())?.status === 'True' ? condition() : undefined), 5_000);
      assert.equal(dangling.reason, 'NotFound');
      assert.equal(dangling.message, 'This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object');
      // Until then its requests go on to the next schema that matches (here catch-all's level is behind global-default).
      await mustOk(call(server.url, 'POST', `${FC}/prioritylevelconfigurations`, { body: { metadata: { name: 'later' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } } }), 201);
      const found = await until('Dangling False', async () => ((await condition())?.status === 'False' ? condition() : undefined), 5_000);
      assert.equal(found.reason, 'Found');
      assert.equal(found.message, 'This FlowSchema references the PriorityLevelConfiguration object named "later" and it exists');
    } finally {
      await server.close();
    }
  });

  it('refuses to start when the in-flight limits add up to nothing to share, as the reference', async () => {
    await assert.rejects(memoryServer({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }), {
      message: 'invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive',
    });
  });

  const switchedOff: Array<[string, ServerOptions]> = [['the feature gate off', { featureGates: ['APIPriorityAndFairness=false'] }], ['--enable-priority-and-fairness=false', { enablePriorityAndFairness: false }]];
  for (const [label, options] of switchedOff) {
    it(`with ${label}, the max-in-flight limits apply instead`, async () => {
      const server = await memoryServer({ ...options, maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
      try {
        const r = await call(server.url, 'GET', '/api/v1/namespaces', as('bob'));
        assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], undefined);
        assert.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], undefined);
        await grantConfigMapReads(server, ['bob']);
        const slow = call(server.url, 'GET', SLOW, as('bob'));
        await new Promise((r) => setTimeout(r, 300));
        assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps', as('bob'))).status, 429);
        await slow;
        // The producer keeps the configuration whether the filter runs or not (as the reference's).
        assert.equal((await call(server.url, 'GET', `${FC}/flowschemas/exempt`)).status, 200);
        const ready = (await mustOk(call(server.url, 'GET', '/readyz?verbose'))).text;
        assert.doesNotMatch(ready, /priority-and-fairness-filter|storage-object-count-tracker-hook/);
        // The max-in-flight filter's hook in its place, as the reference's.
        assert.match(ready, /^\[\+\]poststarthook\/max-in-flight-filter ok$/m);
        assert.match(ready, /priority-and-fairness-config-producer ok/);
      } finally {
        await server.close();
      }
    });
  }
});
