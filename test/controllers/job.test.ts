// The Job controller as kube-controller-manager 1.25's: pods from the template with the tracking
// finalizer, completions and parallelism, Indexed Jobs, backoffLimit, activeDeadlineSeconds,
// suspend and resume, the status and Events. The test writes pod phases as a kubelet would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk, placeholders, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('job controller', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let n = 0;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  async function namespace(): Promise<string> {
    const name = `job-${++n}`;
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } }), 201);
    return name;
  }
  const jobsOf = (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`;
  const podsOf = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
  async function createJob(ns: string, name: string, spec: Record<string, unknown> = {}) {
    return (await mustOk(call(server.url, 'POST', jobsOf(ns), {
      body: {
        apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
        spec: { backoffLimit: 4, template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never' } }, ...spec },
      },
    }), 201)).json;
  }
  async function job(ns: string, name: string) {
    return (await mustOk(call(server.url, 'GET', `${jobsOf(ns)}/${name}`))).json;
  }
  async function pods(ns: string): Promise<any[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return (await mustOk(call(server.url, 'GET', podsOf(ns)))).json.items;
  }
  async function events(ns: string): Promise<Array<{ reason: string; message: string; type: string; count: number; source: { component: string } }>> {
    return (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/${ns}/events`))).json.items;
  }
  async function setPhase(ns: string, pod: string, phase: string) {
    await mustOk(call(server.url, 'PATCH', `${podsOf(ns)}/${pod}/status`, { body: { status: { phase } }, headers: MERGE }));
  }
  const condition = (j: any, type: string) => (j.status?.conditions ?? []).find((c: any) => c.type === type); // eslint-disable-line @typescript-eslint/no-explicit-any

  it('makes what the reference made of create/batch-v1-jobs (the Job\'s row, its pod, the Event)', async () => {
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-create' } } }), 201);
    const c = fixture('create/batch-v1-jobs');
    await mustOk(call(server.url, 'POST', c.request.path, { body: c.request.body, headers: { 'User-Agent': c.request.headers['User-Agent']! } }), 201);
    const TABLE = { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' };
    type Row = { cells: unknown[]; object: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const rows = async (path: string): Promise<Row[]> => (placeholders((await mustOk(call(server.url, 'GET', path, { headers: TABLE }))).json) as { rows: Row[] }).rows;
    const expectedJob = (fixture('table/batch-v1-jobs').response.body as { rows: Row[] }).rows[0]!;
    const jobRow = await until('the status written', async () => {
      const [row] = await rows('/apis/batch/v1/namespaces/ref-create/jobs');
      return row?.object.metadata.managedFields.length === 2 && row;
    });
    assert.deepEqual(jobRow.cells.map((cell, i) => (expectedJob.cells[i] === '<age>' ? '<age>' : cell)), expectedJob.cells);
    const order = (o: any) => ({ ...o, metadata: { ...o.metadata, managedFields: [...o.metadata.managedFields].sort((a: any, b: any) => a.manager.localeCompare(b.manager)) } }); // eslint-disable-line @typescript-eslint/no-explicit-any
    // The order of managedFields entries is the field manager's business, not the controller's.
    assert.deepEqual(order(jobRow.object), order(expectedJob.object));

    const suffixed = (name: string) => name.replace(/-[a-z0-9]{5}$/, '-<suffix>');
    const expectedPod = (fixture('table/core-v1-pods-include-object').response.body as { rows: Row[] }).rows.find((r) => r.object.metadata.name === 'pi-<suffix>')!;
    const [podRow] = await rows('/api/v1/namespaces/ref-create/pods?includeObject=Object');
    const pod = podRow!.object;
    pod.metadata.name = suffixed(pod.metadata.name);
    for (const v of pod.spec.volumes) v.name = suffixed(v.name);
    for (const m of pod.spec.containers[0].volumeMounts) m.name = suffixed(m.name);
    // Keys of managedFields (the owner reference's uid) are not placeholdered by the helper.
    const podFields = JSON.stringify(pod.metadata.managedFields).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>');
    assert.equal(podFields, JSON.stringify(expectedPod.object.metadata.managedFields));
    pod.metadata.managedFields = expectedPod.object.metadata.managedFields;
    assert.deepEqual(pod, expectedPod.object);

    const expectedEvent = (fixture('table/core-v1-events').response.body as { rows: Row[] }).rows.find((r) => r.cells[3] === 'job/pi')!;
    const eventRow = (await rows('/api/v1/namespaces/ref-create/events')).find((r) => r.cells[3] === 'job/pi')!;
    const cells = eventRow.cells.map((cell, i) => (expectedEvent.cells[i] === '<age>' ? '<age>' : typeof cell === 'string' ? suffixed(cell) : cell));
    // Every column but the Event's own name (<object>.<hex time>).
    assert.deepEqual(cells.slice(0, 9), expectedEvent.cells.slice(0, 9));
  });

  it('runs a pod as the reference does, and completes the Job once it succeeds', async () => {
    const ns = await namespace();
    const created = await createJob(ns, 'pi');
    const [pod] = await until('a pod', async () => {
      const list = await pods(ns);
      return list.length === 1 && list;
    });
    assert.match(pod.metadata.name, /^pi-[a-z0-9]{5}$/);
    assert.equal(pod.metadata.generateName, 'pi-');
    assert.deepEqual(pod.metadata.labels, { 'controller-uid': created.metadata.uid, 'job-name': 'pi' });
    assert.deepEqual(pod.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(pod.metadata.managedFields[0].manager, 'kube-controller-manager');
    const running = await until('status.active', async () => {
      const j = await job(ns, 'pi');
      return j.status?.active === 1 && j;
    });
    assert.deepEqual(Object.keys(running.status), ['startTime', 'active', 'uncountedTerminatedPods', 'ready']);
    assert.deepEqual(running.status.uncountedTerminatedPods, {});
    assert.equal(running.status.ready, 0);
    const created1 = (await events(ns)).find((e) => e.reason === 'SuccessfulCreate');
    assert.equal(created1?.message, `Created pod: ${pod.metadata.name}`);
    assert.equal(created1?.source.component, 'job-controller');

    await setPhase(ns, pod.metadata.name, 'Succeeded');
    const done = await until('Complete', async () => {
      const j = await job(ns, 'pi');
      return condition(j, 'Complete')?.status === 'True' && j;
    });
    assert.equal(done.status.succeeded, 1);
    assert.equal(done.status.active, undefined);
    assert.ok(done.status.completionTime);
    assert.deepEqual(done.status.uncountedTerminatedPods, {});
    const after = (await pods(ns))[0];
    assert.equal(after.metadata.finalizers, undefined);
    await until('Completed event', async () => (await events(ns)).some((e) => e.reason === 'Completed' && e.message === 'Job completed'));
  });

  it('keeps parallelism pods running until completions succeed', async () => {
    const ns = await namespace();
    await createJob(ns, 'work', { completions: 3, parallelism: 2 });
    const first = await until('two pods', async () => {
      const list = await pods(ns);
      return list.length === 2 && list;
    });
    for (const p of first) await setPhase(ns, p.metadata.name, 'Succeeded');
    const third = await until('a third pod', async () => {
      const list = (await pods(ns)).filter((p) => !first.some((f: any) => f.metadata.name === p.metadata.name)); // eslint-disable-line @typescript-eslint/no-explicit-any
      return list.length === 1 && list[0];
    });
    const j = await job(ns, 'work');
    assert.equal(j.status.succeeded, 2);
    await setPhase(ns, third.metadata.name, 'Succeeded');
    const done = await until('Complete', async () => {
      const j2 = await job(ns, 'work');
      return condition(j2, 'Complete') && j2;
    });
    assert.equal(done.status.succeeded, 3);
    assert.equal((await pods(ns)).length, 3);
  });

  it('replaces a failed pod, and fails the Job past its backoffLimit', async () => {
    const ns = await namespace();
    await createJob(ns, 'flaky', { backoffLimit: 0 });
    const [pod] = await until('a pod', async () => {
      const list = await pods(ns);
      return list.length === 1 && list;
    });
    await setPhase(ns, pod.metadata.name, 'Failed');
    const failed = await until('Failed', async () => {
      const j = await job(ns, 'flaky');
      return condition(j, 'Failed') && j;
    });
    assert.equal(condition(failed, 'Failed').reason, 'BackoffLimitExceeded');
    assert.equal(condition(failed, 'Failed').message, 'Job has reached the specified backoff limit');
    assert.equal(failed.status.failed, 1);
    await until('warning event', async () => (await events(ns)).some((e) => e.type === 'Warning' && e.reason === 'BackoffLimitExceeded'));

    await createJob(ns, 'retry', { backoffLimit: 3 });
    const [p1] = await until('a pod of retry', async () => {
      const list = (await pods(ns)).filter((p) => p.metadata.labels['job-name'] === 'retry');
      return list.length === 1 && list;
    });
    await setPhase(ns, p1.metadata.name, 'Failed');
    await until('a replacement', async () => (await pods(ns)).filter((p) => p.metadata.labels['job-name'] === 'retry').length === 2);
    const j = await until('failed counted', async () => {
      const x = await job(ns, 'retry');
      return x.status?.failed === 1 && x.status?.active === 1 && x;
    });
    assert.equal(condition(j, 'Failed'), undefined);
  });

  it('runs Indexed Jobs one pod per index', async () => {
    const ns = await namespace();
    await createJob(ns, 'idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' });
    const list = await until('three pods', async () => {
      const l = await pods(ns);
      return l.length === 3 && l;
    });
    const byIndex = new Map(list.map((p: any) => [p.metadata.annotations['batch.kubernetes.io/job-completion-index'], p])); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2']);
    const one = byIndex.get('1');
    assert.equal(one.spec.hostname, 'idx-1');
    assert.match(one.metadata.name, /^idx-1-[a-z0-9]{5}$/);
    assert.deepEqual(one.spec.containers[0].env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }]);
    await setPhase(ns, one.metadata.name, 'Succeeded');
    await setPhase(ns, byIndex.get('2').metadata.name, 'Succeeded');
    const j = await until('completedIndexes', async () => {
      const x = await job(ns, 'idx');
      return x.status?.completedIndexes === '1-2' && x;
    });
    assert.equal(j.status.succeeded, 2);
    await setPhase(ns, byIndex.get('0').metadata.name, 'Succeeded');
    const done = await until('Complete', async () => {
      const x = await job(ns, 'idx');
      return condition(x, 'Complete') && x;
    });
    assert.equal(done.status.completedIndexes, '0-2');
  });

  it('suspends and resumes', async () => {
    const ns = await namespace();
    await createJob(ns, 'later', { suspend: true });
    const suspended = await until('Suspended', async () => {
      const j = await job(ns, 'later');
      return condition(j, 'Suspended') && j;
    });
    assert.deepEqual([condition(suspended, 'Suspended').status, condition(suspended, 'Suspended').reason, condition(suspended, 'Suspended').message], ['True', 'JobSuspended', 'Job suspended']);
    assert.equal(suspended.status.startTime, undefined);
    assert.equal((await pods(ns)).length, 0);
    await mustOk(call(server.url, 'PATCH', `${jobsOf(ns)}/later`, { body: { spec: { suspend: false } }, headers: MERGE }));
    const resumed = await until('Resumed', async () => {
      const j = await job(ns, 'later');
      return condition(j, 'Suspended')?.status === 'False' && j.status.active === 1 && j;
    });
    assert.equal(condition(resumed, 'Suspended').reason, 'JobResumed');
    assert.ok(resumed.status.startTime);
    const reasons = (await events(ns)).map((e) => e.reason);
    assert.ok(reasons.includes('Suspended') && reasons.includes('Resumed'), reasons.join());
  });

  it('fails a Job active past its deadline and removes its pods', async () => {
    const ns = await namespace();
    await createJob(ns, 'slow', { activeDeadlineSeconds: 1 });
    await until('a pod', async () => (await pods(ns)).length === 1);
    const failed = await until('DeadlineExceeded', async () => {
      const j = await job(ns, 'slow');
      return condition(j, 'Failed') && j;
    }, 5000);
    assert.equal(condition(failed, 'Failed').reason, 'DeadlineExceeded');
    assert.equal(condition(failed, 'Failed').message, 'Job was active longer than specified deadline');
    assert.equal(failed.status.active, undefined);
    assert.equal(failed.status.failed, 1);
    await until('pod gone', async () => (await pods(ns)).length === 0);
    const reasons = (await events(ns)).map((e) => e.reason);
    assert.ok(reasons.includes('SuccessfulDelete') && reasons.includes('DeadlineExceeded'), reasons.join());
  });

  it('records FailedCreate for a pod admission refuses, and backs off instead of looping', async () => {
    const ns = await namespace();
    await mustOk(call(server.url, 'POST', `/api/v1/namespaces/${ns}/resourcequotas`, { body: { metadata: { name: 'none' }, spec: { hard: { pods: '0' } } } }), 201);
    await until('quota status', async () => (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/none`))).json.status?.hard);
    await createJob(ns, 'refused');
    const event = await until('FailedCreate', async () => (await events(ns)).find((e) => e.reason === 'FailedCreate'));
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /^Error creating: pods "refused-[a-z0-9]*" is forbidden: exceeded quota: none/);
    await new Promise((r) => setTimeout(r, 2000));
    const again = (await events(ns)).filter((e) => e.reason === 'FailedCreate');
    assert.equal(again.length, 1);
    assert.ok(again[0]!.count <= 2, `count ${again[0]!.count}`);
    assert.equal((await pods(ns)).length, 0);
  });

  it('lets go of the pods of a deleted Job', async () => {
    const ns = await namespace();
    await createJob(ns, 'gone');
    await until('a pod', async () => (await pods(ns)).length === 1);
    await mustOk(call(server.url, 'DELETE', `${jobsOf(ns)}/gone`, { body: { propagationPolicy: 'Background' } }));
    await until('pods gone', async () => (await pods(ns)).length === 0);
  });
});
