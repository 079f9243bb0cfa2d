// The CronJob controller with an injected clock: Jobs named by their scheduled minute, concurrency
// policies, history limits, missed start times, time zones, and schedules it cannot run. The
// server's own cronjob controller is off; the test runs one over the server's storage and moves
// its clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultEnabled } from '../../src/api/catalog.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { CronJobController } from '../../src/controllers/cronjob/cronjob.js';
import { parseSchedule } from '../../src/controllers/cronjob/schedule.js';
import { Registry } from '../../src/registry/store.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, until } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const MINUTE = 60_000;

describe('cronjob schedules', { timeout: 10_000 }, () => {
  const next = (spec: string, from: string) => new Date(parseSchedule(spec).next(Date.parse(from))!).toISOString();
  it('reads standard cron as the reference does', () => {
    assert.equal(next('0 3 * * *', '2026-11-26T20:13:27Z'), '2026-11-27T03:00:00.000Z');
    assert.equal(next('*/15 * * * *', '2026-11-26T20:15:00Z'), '2026-11-26T20:30:00.000Z');
    assert.equal(next('0 9 * * MON-FRI', '2026-11-27T10:00:00Z'), '2026-11-30T09:00:00.000Z');
    // Both day fields restricted: either matches.
    assert.equal(next('0 9 1 * MON', '2026-11-26T00:00:00Z'), '2026-11-30T09:00:00.000Z');
    assert.equal(next('0 0 29 2 *', '2026-03-01T00:00:00Z'), '2028-02-29T00:00:00.000Z');
    assert.equal(next('@hourly', '2026-11-26T20:13:27Z'), '2026-11-26T21:00:00.000Z');
    assert.equal(next('TZ=Asia/Tokyo 0 9 * * *', '2026-11-26T20:13:27Z'), '2026-11-27T00:00:00.000Z');
    assert.equal(parseSchedule('0 0 31 2 *').next(Date.parse('2026-01-01T00:00:00Z')), undefined);
  });
  it('refuses what the reference refuses, with its messages', () => {
    assert.throws(() => parseSchedule('* * * *'), /expected exactly 5 fields, found 4: \[\* \* \* \*\]/);
    assert.throws(() => parseSchedule('* * * * 7'), /end of range \(7\) above maximum \(6\): 7/);
    assert.throws(() => parseSchedule('TZ=Nowhere/Land * * * * *'), /provided bad location Nowhere\/Land/);
  });
});

describe('cronjob controller', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let controller: CronJobController;
  let clock = Date.now();
  let n = 0;
  before(async () => {
    server = await memoryServer({ controllers: ['*', '-cronjob'] });
    const registry = new Registry(builtinResourceDefinitions(defaultEnabled), server.storage);
    controller = new CronJobController(registry, { now: () => clock });
    await controller.start();
  });
  after(async () => {
    controller.stop();
    await server.close();
  });

  async function namespace(): Promise<string> {
    const name = `cron-${++n}`;
    await mustOk(call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } }), 201);
    return name;
  }
  const cronOf = (ns: string) => `/apis/batch/v1/namespaces/${ns}/cronjobs`;
  const jobsOf = (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`;
  async function createCronJob(ns: string, name: string, spec: Record<string, unknown>) {
    return (await mustOk(call(server.url, 'POST', cronOf(ns), {
      body: {
        apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name },
        spec: {
          jobTemplate: { metadata: { labels: { team: 'a' } }, spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox:1.36' }], restartPolicy: 'OnFailure' } } } },
          ...spec,
        },
      },
    }), 201)).json;
  }
  const cronJob = async (ns: string, name: string) => (await mustOk(call(server.url, 'GET', `${cronOf(ns)}/${name}`))).json;
  const jobs = async (ns: string): Promise<any[]> => (await mustOk(call(server.url, 'GET', jobsOf(ns)))).json.items; // eslint-disable-line @typescript-eslint/no-explicit-any
  const events = async (ns: string): Promise<Array<{ reason: string; message: string; type: string; source: { component: string } }>> =>
    (await mustOk(call(server.url, 'GET', `/api/v1/namespaces/${ns}/events`))).json.items;
  const eventWith = (ns: string, reason: string) => until(`event ${reason}`, async () => (await events(ns)).find((e) => e.reason === reason && e.source.component === 'cronjob-controller'));
  /** Moves the clock just past the next scheduled time after the current one, and syncs. */
  async function tick(ns: string, name: string, schedule: string): Promise<number> {
    const at = parseSchedule(schedule).next(clock)!;
    clock = at + 1000;
    await controller.syncNow(ns, name);
    return at;
  }
  async function complete(ns: string, name: string) {
    const time = new Date(clock).toISOString().replace(/\.\d+Z$/, 'Z');
    await mustOk(call(server.url, 'PATCH', `${jobsOf(ns)}/${name}/status`, {
      body: { status: { startTime: time, completionTime: time, succeeded: 1, conditions: [{ type: 'Complete', status: 'True', lastProbeTime: time, lastTransitionTime: time }] } }, headers: MERGE,
    }));
  }

  it('creates a Job named by its scheduled minute at each scheduled time', async () => {
    const ns = await namespace();
    clock = Date.now();
    const cj = await createCronJob(ns, 'hello', { schedule: '*/5 * * * *' });
    await controller.syncNow(ns, 'hello');
    assert.equal((await jobs(ns)).length, 0, 'nothing before the first scheduled time');
    const at = await tick(ns, 'hello', '*/5 * * * *');
    const name = `hello-${at / MINUTE}`;
    const [job] = await until('a job', async () => {
      const list = await jobs(ns);
      return list.length === 1 && list;
    });
    assert.equal(job.metadata.name, name);
    assert.deepEqual(job.metadata.labels, { team: 'a' });
    assert.deepEqual(job.spec.template.metadata.labels, { 'controller-uid': job.metadata.uid, 'job-name': name });
    assert.deepEqual(job.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'hello', uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(job.spec.template.spec.containers[0].image, 'busybox:1.36');
    const status = (await cronJob(ns, 'hello')).status;
    assert.equal(status.lastScheduleTime, new Date(at).toISOString().replace('.000Z', 'Z'));
    assert.deepEqual(status.active.map((r: { kind: string; name: string; uid: string; apiVersion: string }) => [r.kind, r.name, r.uid, r.apiVersion]), [['Job', name, job.metadata.uid, 'batch/v1']]);
    const created = await eventWith(ns, 'SuccessfulCreate');
    assert.equal(created.message, `Created job ${name}`);
    assert.equal(created.source.component, 'cronjob-controller');
    // The same scheduled time again makes nothing new.
    await controller.syncNow(ns, 'hello');
    assert.equal((await jobs(ns)).length, 1);

    // Finished: taken off the active list, then counted as the last success.
    await complete(ns, name);
    await until('job seen complete', async () => {
      await controller.syncNow(ns, 'hello');
      const s = (await cronJob(ns, 'hello')).status;
      return s.active === undefined && s.lastSuccessfulTime;
    });
    assert.match((await eventWith(ns, 'SawCompletedJob')).message, new RegExp(`^Saw completed job: ${name}, status: Complete$`));
  });

  it('Forbid skips a run while one is active; Replace replaces it', async () => {
    const ns = await namespace();
    clock = Date.now();
    await createCronJob(ns, 'solo', { schedule: '* * * * *', concurrencyPolicy: 'Forbid' });
    const first = await tick(ns, 'solo', '* * * * *');
    await until('first job', async () => (await jobs(ns)).length === 1);
    await tick(ns, 'solo', '* * * * *');
    const skipped = await eventWith(ns, 'JobAlreadyActive');
    assert.equal(skipped.message, 'Not starting job because prior execution is running and concurrency policy is Forbid');
    assert.equal((await jobs(ns)).length, 1);

    await mustOk(call(server.url, 'PATCH', `${cronOf(ns)}/solo`, { body: { spec: { concurrencyPolicy: 'Replace' } }, headers: MERGE }));
    const second = await tick(ns, 'solo', '* * * * *');
    const deleted = await eventWith(ns, 'SuccessfulDelete');
    assert.equal(deleted.message, `Deleted job solo-${first / MINUTE}`);
    const names = await until('replaced', async () => {
      const list = (await jobs(ns)).filter((j) => !j.metadata.deletionTimestamp).map((j) => j.metadata.name);
      return list.length === 1 && list;
    });
    assert.deepEqual(names, [`solo-${second / MINUTE}`]);
    assert.deepEqual((await cronJob(ns, 'solo')).status.active.map((r: { name: string }) => r.name), [`solo-${second / MINUTE}`]);
  });

  it('keeps successfulJobsHistoryLimit finished Jobs', async () => {
    const ns = await namespace();
    clock = Date.now();
    await createCronJob(ns, 'hist', { schedule: '* * * * *', successfulJobsHistoryLimit: 1 });
    const names: string[] = [];
    for (let i = 0; i < 2; i++) {
      const at = await tick(ns, 'hist', '* * * * *');
      names.push(`hist-${at / MINUTE}`);
      await until('job', async () => (await jobs(ns)).some((j) => j.metadata.name === names[i]));
      await complete(ns, names[i]!);
    }
    await until('oldest removed', async () => {
      await controller.syncNow(ns, 'hist');
      const left = (await jobs(ns)).filter((j) => !j.metadata.deletionTimestamp).map((j) => j.metadata.name);
      return left.length === 1 && left[0] === names[1];
    });
  });

  it('warns of too many missed start times and starts only the latest', async () => {
    const ns = await namespace();
    clock = Date.now();
    await createCronJob(ns, 'late', { schedule: '* * * * *' });
    clock += 200 * MINUTE;
    await controller.syncNow(ns, 'late');
    const warning = await eventWith(ns, 'TooManyMissedTimes');
    assert.match(warning.message, /^too many missed start times: 20\d\. Set or decrease \.spec\.startingDeadlineSeconds or check clock skew$/);
    assert.equal(warning.type, 'Warning');
    const list = await until('one job', async () => {
      const l = await jobs(ns);
      return l.length === 1 && l;
    });
    assert.equal(list[0].metadata.name, `late-${Math.floor(clock / MINUTE)}`);
  });

  it('schedules in spec.timeZone', async () => {
    const ns = await namespace();
    clock = Date.parse('2026-11-26T20:00:00Z');
    await mustOk(call(server.url, 'POST', cronOf(ns), {
      body: { metadata: { name: 'tokyo' }, spec: { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } } } },
    }), 201);
    // Created "now" (real time); the clock is moved past the next 09:00 in Tokyo after it.
    const nine = parseSchedule('TZ=Asia/Tokyo 0 9 * * *').next(Date.now())!;
    assert.equal(new Date(nine).getUTCHours(), 0);
    clock = nine + 1000;
    await controller.syncNow(ns, 'tokyo');
    await until('the 09:00 Tokyo job', async () => (await jobs(ns)).some((j) => j.metadata.name === `tokyo-${nine / MINUTE}`));
  });

  it('records what it cannot run, and does not retry in a loop', async () => {
    const ns = await namespace();
    clock = Date.now();
    await createCronJob(ns, 'badzone', { schedule: '* * * * *', timeZone: 'Mars/Olympus' });
    await createCronJob(ns, 'badtz', { schedule: 'TZ=Nowhere/Land * * * * *' });
    clock += 5 * MINUTE;
    await controller.syncNow(ns, 'badzone');
    await controller.syncNow(ns, 'badtz');
    assert.equal((await eventWith(ns, 'UnknownTimeZone')).message, 'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus');
    assert.match((await eventWith(ns, 'UnparseableSchedule')).message, /^unparseable schedule: "TZ=Nowhere\/Land \* \* \* \* \*" : provided bad location Nowhere\/Land/);
    assert.ok((await events(ns)).some((e) => e.reason === 'UnsupportedSchedule'));
    assert.equal((await jobs(ns)).length, 0);
  });
});
