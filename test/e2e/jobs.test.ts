// Jobs and CronJobs end to end with kubectl: a Job's pod runs (the test marks it Succeeded through
// pods/status, as a kubelet would), `kubectl wait --for=condition=complete` returns and `kubectl
// get jobs` shows 1/1; a CronJob instantiated by hand, and one that runs on its schedule.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { until } from '../helpers.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

describe('kubectl with Jobs and CronJobs', { timeout: 120_000 }, () => {
  const suite = capstanForSuite();
  let scheduledFrom = 0;

  it('a CronJob running each minute is created first, to be checked last', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', 'cronjob', 'tick', '--image=busybox:1.36', '--schedule=* * * * *', '--', 'date']);
    scheduledFrom = Date.parse(JSON.parse(await ok(kc, ['get', 'cronjob', 'tick', '-o', 'json'])).metadata.creationTimestamp);
  });

  it('kubectl create job runs a pod to completion', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', 'job', 'pi', '--image=perl:5.34', '--', 'perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)']);
    const pod = await until('the pod', async () => JSON.parse(await ok(kc, ['get', 'pods', '-l', 'job-name=pi', '-o', 'json'])).items[0], 10_000, 100);
    assert.match(pod.metadata.name, /^pi-[a-z0-9]{5}$/);
    assert.deepEqual(pod.metadata.finalizers, ['batch.kubernetes.io/job-tracking']);
    const before = await ok(kc, ['get', 'jobs']);
    assert.match(before, /^NAME\s+COMPLETIONS\s+DURATION\s+AGE\npi\s+0\/1\s+/);
    await ok(kc, ['patch', 'pod', pod.metadata.name, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Succeeded"}}']);
    const waited = await ok(kc, ['wait', '--for=condition=complete', 'job/pi', '--timeout=20s']);
    assert.match(waited, /job.batch\/pi condition met/);
    assert.match(await ok(kc, ['get', 'jobs']), /\npi\s+1\/1\s+\d+s\s+/);
    const events = await ok(kc, ['get', 'events', '--field-selector=involvedObject.name=pi', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message,SOURCE:.source.component', '--no-headers']);
    assert.match(events, new RegExp(`SuccessfulCreate\\s+Created pod: ${pod.metadata.name}\\s+job-controller`));
    assert.match(events, /Completed\s+Job completed\s+job-controller/);
    const after = JSON.parse(await ok(kc, ['get', 'pod', pod.metadata.name, '-o', 'json']));
    assert.equal(after.metadata.finalizers, undefined, 'counted, then let go');
  });

  it('kubectl create job --from=cronjob makes a Job of the CronJob\'s template', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', 'cronjob', 'hello', '--image=busybox:1.36', '--schedule=0 3 * * *', '--', 'sh', '-c', 'date; echo Hello']);
    await ok(kc, ['create', 'job', 'hello-now', '--from=cronjob/hello']);
    const job = JSON.parse(await ok(kc, ['get', 'job', 'hello-now', '-o', 'json']));
    assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    await until('its pod', async () => JSON.parse(await ok(kc, ['get', 'pods', '-l', 'job-name=hello-now', '-o', 'json'])).items.length === 1, 10_000, 100);
    assert.match(await ok(kc, ['get', 'cronjobs']), /\nhello\s+0 3 \* \* \*\s+False\s+0\s+<none>\s+/);
  });

  it('a Job whose pods admission refuses records FailedCreate and keeps waiting', async () => {
    const kc = suite.current.kubeconfig;
    await ok(kc, ['create', 'namespace', 'tight']);
    await ok(kc, ['create', 'quota', 'none', '--hard=pods=0', '-n', 'tight']);
    await until('quota observed', async () => JSON.parse(await ok(kc, ['get', 'quota', 'none', '-n', 'tight', '-o', 'json'])).status?.hard, 10_000, 100);
    await ok(kc, ['create', 'job', 'blocked', '--image=busybox', '-n', 'tight']);
    const message = await until('FailedCreate', async () => (await ok(kc, ['get', 'events', '-n', 'tight', '--field-selector=reason=FailedCreate', '-o', 'jsonpath={.items[*].message}'])) || undefined, 10_000, 100);
    assert.match(message, /^Error creating: pods "blocked-[a-z0-9]+" is forbidden: exceeded quota: none/);
    const r = await kubectl(kc, ['wait', '--for=condition=complete', 'job/blocked', '-n', 'tight', '--timeout=1s']);
    assert.notEqual(r.code, 0);
    assert.equal(JSON.parse(await ok(kc, ['get', 'pods', '-n', 'tight', '-o', 'json'])).items.length, 0);
  });

  it('the CronJob running each minute made its Job at the minute', async () => {
    const kc = suite.current.kubeconfig;
    const minute = Math.floor(scheduledFrom / 60_000) + 1;
    const jobs = await until('the scheduled Job', async () => {
      const items = JSON.parse(await ok(kc, ['get', 'jobs', '-o', 'json'])).items as Array<{ metadata: { name: string; ownerReferences?: Array<{ kind: string; name: string }> } }>;
      const made = items.filter((j) => j.metadata.ownerReferences?.some((r) => r.kind === 'CronJob' && r.name === 'tick'));
      return made.length > 0 && made;
    }, 75_000, 1000);
    assert.equal(jobs[0]!.metadata.name, `tick-${minute}`);
    const cj = JSON.parse(await ok(kc, ['get', 'cronjob', 'tick', '-o', 'json']));
    assert.equal(Date.parse(cj.status.lastScheduleTime), minute * 60_000);
    assert.equal(cj.status.active[0].name, `tick-${minute}`);
    const events = await ok(kc, ['get', 'events', '--field-selector=involvedObject.name=tick', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message', '--no-headers']);
    assert.match(events, new RegExp(`SuccessfulCreate\\s+Created job tick-${minute}`));
  });
});
