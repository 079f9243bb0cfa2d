// The CronJob controller (kube-controller-manager 1.25's `cronjob`, its v2): at each scheduled
// time it creates a Job named `<cronjob>-<scheduled minutes since the epoch>` from the template,
// under the concurrency policy (Allow, Forbid, Replace), the starting deadline and suspend; it
// keeps status.active, lastScheduleTime and lastSuccessfulTime, removes finished Jobs beyond the
// history limits, and is queued again for the next scheduled time. The clock can be injected.
import { StatusError } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer, Subscription } from '../../registry/informers.js';
import type { Registry } from '../../registry/store.js';
import { type JsonObject, decodeJson, isObject, jsonEqual, rfc3339, copyJson } from '../../json.js';
import { EventRecorder } from '../kit/events.js';
import { controllerOf, controllerReference } from '../kit/owned.js';
import { WorkQueue, keyOf, splitKey } from '../kit/work-queue.js';
import { controllerWriter } from '../kit/writer.js';
import { type Schedule, parseSchedule } from './schedule.js';
import { ZonedClock } from './zoned-clock.js';

/** Past this many missed start times, the reference warns (and still starts only the latest). */
const TOO_MANY_MISSED = 100;
/** The reference wakes this long after a scheduled time. */
const NEXT_SCHEDULE_DELTA_MS = 100;
/** Timers cannot wait longer than ~24 days; a far schedule is looked at again hourly. */
const MAX_REQUEUE_MS = 3_600_000;

export interface CronJobControllerOptions {
  /** The controller's clock (ms since the epoch); tests move it. */
  now?: () => number;
}

function finishedType(job: JsonObject): 'Complete' | 'Failed' | undefined {
  const status = isObject(job['status']) ? job['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as JsonObject[]) : [];
  const c = conditions.find((x) => (x['type'] === 'Complete' || x['type'] === 'Failed') && x['status'] === 'True');
  return c ? (c['type'] as 'Complete' | 'Failed') : undefined;
}

/** Go's time.RFC1123Z of a UTC instant: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `${days[d.getUTCDay()]}, ${two(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The latest scheduled time in (earliest, now], and how many there were (estimated from the
 * first two, as the reference's 1.25 does); undefined when none.
 */
export function mostRecentScheduleTime(earliest: number, now: number, schedule: Schedule): { time: number; missed: number } | undefined {
  const t1 = schedule.next(earliest);
  if (t1 === undefined || now < t1) return undefined;
  const t2 = schedule.next(t1);
  if (t2 === undefined || now < t2) return { time: t1, missed: 1 };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error('time difference between two schedules less than 1 second');
  const elapsed = Math.trunc((now - t1) / 1000);
  const missed = Math.trunc(elapsed / between) + 1;
  return { time: Math.trunc(t1 / 1000) * 1000 + (missed - 1) * between * 1000, missed };
}

export class CronJobController {
  private readonly writer = controllerWriter('cronjob-controller');
  private readonly events: EventRecorder;
  private readonly queue: WorkQueue;
  private readonly subscriptions: Subscription[] = [];
  private readonly now: () => number;
  /** Per CronJob: when it is queued again for. */
  private readonly requeued = new Map<string, number>();
  private cronInfo!: ResourceInfo;
  private jobInfo!: ResourceInfo;
  private jobs!: Informer;

  constructor(private readonly registry: Registry, options: CronJobControllerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.events = new EventRecorder(registry, 'cronjob-controller', this.writer);
    this.queue = new WorkQueue((key) => this.sync(key), { baseDelayMs: 5, maxDelayMs: 1000_000, onError: (key, err) => this.debug(key, err) });
  }

  async start(): Promise<void> {
    const cronInfo = this.registry.definitions.lookup('batch', 'v1', 'cronjobs');
    const jobInfo = this.registry.definitions.lookup('batch', 'v1', 'jobs');
    if (!cronInfo || !jobInfo) return;
    this.cronInfo = cronInfo;
    this.jobInfo = jobInfo;
    this.jobs = await this.registry.informer(jobInfo);
    const cronJobs = await this.registry.informer(cronInfo);
    this.subscriptions.push(cronJobs.subscribe({
      added: (cj) => this.queue.add(keyOf(cj.namespace, cj.name)),
      deleted: (cj) => this.requeued.delete(keyOf(cj.namespace, cj.name)),
      updated: (cj, old) => {
        // A status write of its own needs no sync; a changed spec (schedule, suspend…) does.
        if (!jsonEqual(cj.object['spec'], old.object['spec']) || !jsonEqual(metadataOf(cj.object)['deletionTimestamp'], metadataOf(old.object)['deletionTimestamp'])) this.queue.add(keyOf(cj.namespace, cj.name));
      },
    }));
    const ownerChanged = (job: JsonObject) => {
      const ref = controllerOf(job);
      if (ref && ref['kind'] === 'CronJob') this.queue.add(keyOf(String(metadataOf(job)['namespace']), String(ref['name'])));
    };
    this.subscriptions.push(this.jobs.subscribe({
      added: (job) => ownerChanged(job.object),
      updated: (job) => ownerChanged(job.object),
      deleted: (job) => ownerChanged(job.object),
    }, { replay: false }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
    this.queue.stop();
  }

  /** Queues one CronJob now and waits until nothing is being synced (tests with an injected clock). */
  async syncNow(namespace: string, name: string): Promise<void> {
    this.queue.add(keyOf(namespace, name));
    await this.queue.idle();
  }

  private debug(key: string, err: unknown): void {
    if (process.env['CAPSTAN_DEBUG_CONTROLLERS']) console.error(`cronjob controller: ${key}:`, err);
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ns = namespace ?? '';
    const cronJob = await this.registry.getObject(this.cronInfo, ns, name);
    if (!cronJob) return;
    const owned = this.jobs.list(ns).filter((j) => {
      const ref = controllerOf(j);
      return ref?.['kind'] === 'CronJob' && ref['name'] === name;
    });
    const before = isObject(cronJob['status']) ? cronJob['status'] : {};
    const status: JsonObject = copyJson(before);
    const { requeueAfter, error } = await this.reconcile(cronJob, status, owned);
    await this.cleanupFinishedJobs(cronJob, status, owned);
    if (!jsonEqual(status, before)) await this.writeStatus(cronJob, status);
    if (requeueAfter !== undefined) this.requeue(key, requeueAfter);
    if (error !== undefined) throw error;
  }

  /** Queues the CronJob for its next scheduled time (once per time; far times are looked at again within the hour). */
  private requeue(key: string, delayMs: number): void {
    const delay = Math.min(delayMs, MAX_REQUEUE_MS);
    const due = this.now() + delay;
    if (this.requeued.get(key) === due) return;
    this.requeued.set(key, due);
    this.queue.addAfter(key, delay);
  }

  private activeOf(status: JsonObject): JsonObject[] {
    return Array.isArray(status['active']) ? (status['active'] as JsonObject[]) : [];
  }

  private setActive(status: JsonObject, active: JsonObject[]): void {
    if (active.length) status['active'] = active;
    else delete status['active'];
  }

  /** The reference's syncCronJob: changes `status` in place; says when to come back. */
  private async reconcile(cronJob: JsonObject, status: JsonObject, owned: JsonObject[]): Promise<{ requeueAfter?: number; error?: unknown }> {
    const meta = metadataOf(cronJob);
    const spec = isObject(cronJob['spec']) ? cronJob['spec'] : {};
    const now = this.now();
    const children = new Set<string>();
    for (const job of owned) {
      const jmeta = metadataOf(job);
      const uid = String(jmeta['uid']);
      children.add(uid);
      const active = this.activeOf(status);
      const found = active.some((r) => r['uid'] === uid);
      const finished = finishedType(job);
      if (!found && !finished) {
        this.events.record(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${String(jmeta['name'])}`);
      } else if (found && finished) {
        this.setActive(status, active.filter((r) => r['uid'] !== uid));
        this.events.record(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${String(jmeta['name'])}, status: ${finished}`);
      } else if (finished) {
        // Finished jobs need not be active to count for lastSuccessfulTime.
        const jstatus = isObject(job['status']) ? job['status'] : {};
        const completion = typeof jstatus['completionTime'] === 'string' ? jstatus['completionTime'] : undefined;
        const last = typeof status['lastSuccessfulTime'] === 'string' ? status['lastSuccessfulTime'] : undefined;
        if (completion && (!last || Date.parse(completion) > Date.parse(last))) status['lastSuccessfulTime'] = completion;
      }
    }
    // Active references whose Job is gone.
    for (const ref of this.activeOf(status)) {
      if (children.has(String(ref['uid']))) continue;
      const job = await this.registry.getObject(this.jobInfo, String(ref['namespace'] ?? meta['namespace']), String(ref['name']));
      if (job) continue;
      this.events.record(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${String(ref['name'])}`);
      this.setActive(status, this.activeOf(status).filter((r) => r['uid'] !== ref['uid']));
    }
    if (meta['deletionTimestamp']) return {};
    const timeZone = typeof spec['timeZone'] === 'string' ? spec['timeZone'] : undefined;
    if (timeZone !== undefined && !ZonedClock.valid(timeZone)) {
      this.events.record(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${timeZone}": unknown time zone ${timeZone}`);
      return {};
    }
    if (spec['suspend'] === true) return {};
    const scheduleText = String(spec['schedule'] ?? '');
    let schedule: Schedule;
    try {
      schedule = parseSchedule(this.formatSchedule(cronJob, scheduleText, timeZone));
    } catch (err) {
      this.events.record(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${scheduleText}" : ${messageOf(err)}`);
      return {};
    }
    const untilNext = () => {
      const next = schedule.next(now);
      return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
    };
    let scheduled: number | undefined;
    try {
      scheduled = this.nextScheduleTime(cronJob, status, now, schedule);
    } catch (err) {
      this.events.record(cronJob, 'Warning', 'InvalidSchedule', `invalid schedule: ${scheduleText} : ${messageOf(err)}`);
      return {};
    }
    if (scheduled === undefined) return { requeueAfter: untilNext() };
    const deadline = spec['startingDeadlineSeconds'];
    if (typeof deadline === 'number' && scheduled + deadline * 1000 < now) {
      this.events.record(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { requeueAfter: untilNext() };
    }
    const jobName = `${String(meta['name'])}-${Math.floor(scheduled / 60_000)}`;
    const lastSchedule = typeof status['lastScheduleTime'] === 'string' ? Date.parse(status['lastScheduleTime']) : undefined;
    if (this.activeOf(status).some((r) => r['name'] === jobName) || lastSchedule === scheduled) return { requeueAfter: untilNext() };
    const policy = spec['concurrencyPolicy'] ?? 'Allow';
    if (policy === 'Forbid' && this.activeOf(status).length > 0) {
      this.events.record(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { requeueAfter: untilNext() };
    }
    if (policy === 'Replace') {
      for (const ref of this.activeOf(status)) {
        const job = await this.registry.getObject(this.jobInfo, String(meta['namespace']), String(ref['name']));
        if (!job) {
          const err = new StatusError(404, 'NotFound', `jobs.batch "${String(ref['name'])}" not found`);
          this.events.record(cronJob, 'Warning', 'FailedGet', `Get job: ${err.message}`);
          return { error: err };
        }
        if (!(await this.deleteJob(cronJob, status, job))) return { error: new Error(`could not replace job ${String(meta['namespace'])}/${String(ref['name'])}`) };
      }
    }
    let created: JsonObject;
    try {
      created = decodeJson((await this.registry.create(this.jobInfo, String(meta['namespace']), this.jobFromTemplate(cronJob, jobName, scheduled), this.writer)).body);
    } catch (err) {
      if (err instanceof StatusError && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return {};
      // Created by someone else (or by an earlier try whose status was lost): come back later.
      if (err instanceof StatusError && err.code === 409) return { error: err };
      this.events.record(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${messageOf(err)}`);
      return { error: err };
    }
    const cmeta = metadataOf(created);
    this.events.record(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${String(cmeta['name'])}`);
    this.setActive(status, [...this.activeOf(status), {
      kind: 'Job', namespace: cmeta['namespace'], name: cmeta['name'], uid: cmeta['uid'], apiVersion: 'batch/v1', resourceVersion: cmeta['resourceVersion'],
    }]);
    status['lastScheduleTime'] = rfc3339(scheduled);
    return { requeueAfter: untilNext() };
  }

  /** The schedule as the library is given it: spec.timeZone becomes a TZ= prefix. */
  private formatSchedule(cronJob: JsonObject, schedule: string, timeZone: string | undefined): string {
    if (schedule.includes('TZ')) {
      this.events.record(cronJob, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule "${schedule}" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
      return schedule;
    }
    return timeZone !== undefined ? `TZ=${timeZone} ${schedule}` : schedule;
  }

  /** The latest unmet scheduled time since the last one (or the creation, or the starting deadline). */
  private nextScheduleTime(cronJob: JsonObject, status: JsonObject, now: number, schedule: Schedule): number | undefined {
    const spec = isObject(cronJob['spec']) ? cronJob['spec'] : {};
    let earliest = typeof status['lastScheduleTime'] === 'string'
      ? Date.parse(status['lastScheduleTime'])
      : Date.parse(String(metadataOf(cronJob)['creationTimestamp']));
    const deadline = spec['startingDeadlineSeconds'];
    if (typeof deadline === 'number') earliest = Math.max(earliest, now - deadline * 1000);
    if (earliest > now) return undefined;
    const recent = mostRecentScheduleTime(earliest, now, schedule);
    if (recent && recent.missed > TOO_MANY_MISSED) {
      this.events.record(cronJob, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${recent.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    }
    return recent?.time;
  }

  private jobFromTemplate(cronJob: JsonObject, name: string, scheduled: number): JsonObject {
    const spec = isObject(cronJob['spec']) ? cronJob['spec'] : {};
    const template = isObject(spec['jobTemplate']) ? spec['jobTemplate'] : {};
    const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
    const metadata: JsonObject = { name };
    if (isObject(tmeta['labels'])) metadata['labels'] = copyJson(tmeta['labels']);
    if (isObject(tmeta['annotations'])) metadata['annotations'] = copyJson(tmeta['annotations']);
    metadata['creationTimestamp'] = rfc3339(scheduled);
    metadata['ownerReferences'] = [controllerReference(cronJob)];
    return { apiVersion: 'batch/v1', kind: 'Job', metadata, spec: copyJson(isObject(template['spec']) ? template['spec'] : {}) };
  }

  /** Deletes a Job (its pods in the background); false when it could not. */
  private async deleteJob(cronJob: JsonObject, status: JsonObject, job: JsonObject): Promise<boolean> {
    const jmeta = metadataOf(job);
    try {
      await this.registry.delete(this.jobInfo, String(jmeta['namespace']), String(jmeta['name']), { propagationPolicy: 'Background', user: this.writer.user });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) {
        this.events.record(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${messageOf(err)}`);
        return false;
      }
    }
    this.setActive(status, this.activeOf(status).filter((r) => r['uid'] !== jmeta['uid']));
    this.events.record(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${String(jmeta['name'])}`);
    return true;
  }

  /** Removes the oldest finished Jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit. */
  private async cleanupFinishedJobs(cronJob: JsonObject, status: JsonObject, owned: JsonObject[]): Promise<void> {
    const spec = isObject(cronJob['spec']) ? cronJob['spec'] : {};
    const limits = { Complete: spec['successfulJobsHistoryLimit'], Failed: spec['failedJobsHistoryLimit'] };
    for (const type of ['Complete', 'Failed'] as const) {
      const limit = limits[type];
      if (typeof limit !== 'number') continue;
      const finished = owned.filter((j) => finishedType(j) === type);
      if (finished.length <= limit) continue;
      // Oldest start first; Jobs never started last; ties by name.
      const startOf = (j: JsonObject) => {
        const s = isObject(j['status']) ? j['status']['startTime'] : undefined;
        return typeof s === 'string' ? Date.parse(s) : Infinity;
      };
      finished.sort((a, b) => (startOf(a) === startOf(b) ? 0 : startOf(a) - startOf(b)) || (String(metadataOf(a)['name']) < String(metadataOf(b)['name']) ? -1 : 1));
      for (const job of finished.slice(0, finished.length - limit)) await this.deleteJob(cronJob, status, job);
    }
  }

  private async writeStatus(cronJob: JsonObject, status: JsonObject): Promise<void> {
    const meta = metadataOf(cronJob);
    await this.registry.patch(this.cronInfo, String(meta['namespace']), String(meta['name']), (current) => ({ ...current, status }), 'status', this.writer);
  }
}
