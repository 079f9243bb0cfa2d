// One server's metrics, as kube-apiserver 1.25 serves them at /metrics: the request, watch,
// storage, admission and authentication families of this server, then the process's own
// (process-metrics.ts: process_cpu_seconds_total, process_resident_memory_bytes,
// process_start_time_seconds, process_open_fds, …, and nodejs_* ones in place of go_*).
// Several servers may share a process (test hosts): each has its own registry, the process
// metrics are collected once for all.
import { Registry } from 'prom-client';
import { AdmissionMetrics } from './admission.js';
import { AggregatorMetrics } from './aggregator.js';
import { FlowControlMetrics } from './flowcontrol.js';
import { collectProcessMetrics } from './process-metrics.js';
import {
  BUILD_INFO, gauge, AUTHENTICATED_USER_REQUESTS, AUTHENTICATION_ATTEMPTS, AUTHENTICATION_DURATION, presummedCounter, presummedHistogram, WATCH_EVENTS,
  WATCH_EVENTS_SIZES,
} from './families.js';
import type { CounterSeries, HistogramSeries } from './presummed.js';
import { RequestMetrics } from './requests.js';
import { StorageMetrics } from './storage.js';

/** The exposition's Content-Type (the text format 0.0.4, as the reference's handler answers). */
export const EXPOSITION_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * Sample values that are not a number written `NaN`, as the text format and the reference's Go
 * client write them: prom-client writes `Nan` (the event loop's mean delay over a scrape interval
 * with no sample in it is one), which Prometheus reads but stricter parsers refuse.
 */
export function withNaNSpelled(exposition: string): string {
  return exposition.replace(/^([^#\n][^\n]* )Nan$/gm, '$1NaN');
}

let processRegistry: Registry | undefined;

/** The process's metrics, collected from the first server on (their monitors live as long as the process). */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectProcessMetrics(processRegistry);
  }
  return processRegistry;
}

/** The build a server reports (its /version). */
export interface BuildInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** The result label of an authentication: a user, no credential that said who (anonymous off), or a credential refused. */
export type AuthenticationResult = 'success' | 'failure' | 'error';

/** What a watch adds to for each event it sends. */
export interface WatchEventMetrics {
  sent(bytes: number): void;
}

/** Known identities keep their name; the rest are `email_id` or `other` (the label's values stay few, as the reference's). */
function compressedUsername(name: string): string {
  if (name === 'admin' || name === 'client' || name === 'kube_proxy' || name === 'kubelet' || name === 'system:serviceaccount:kube-system:default') return name;
  return name.includes('@') ? 'email_id' : 'other';
}

export class ServerMetrics {
  private readonly registry = new Registry();
  readonly requests = new RequestMetrics(this.registry);
  readonly storage = new StorageMetrics(this.registry);
  readonly admission = new AdmissionMetrics(this.registry);
  readonly aggregator = new AggregatorMetrics(this.registry);
  /** API Priority and Fairness (apiserver_flowcontrol_*). */
  readonly flowcontrol = new FlowControlMetrics(this.registry);
  private readonly watchEvents = presummedCounter(this.registry, WATCH_EVENTS);
  private readonly watchEventSizes = presummedHistogram(this.registry, WATCH_EVENTS_SIZES);
  private readonly watchChildren = new Map<string, WatchEventMetrics>();
  private readonly authAttempts = presummedCounter(this.registry, AUTHENTICATION_ATTEMPTS);
  private readonly authUsers = presummedCounter(this.registry, AUTHENTICATED_USER_REQUESTS);
  private readonly authDuration = presummedHistogram(this.registry, AUTHENTICATION_DURATION);
  private readonly authChildren = new Map<string, { attempts: CounterSeries<string>; duration: HistogramSeries<string> }>();
  private readonly userChildren = new Map<string, CounterSeries<string>>();

  /** `build`: what kubernetes_build_info labels (the /version answer's fields). */
  constructor(build: BuildInfo) {
    processMetrics();
    gauge(this.registry, BUILD_INFO).labels({
      build_date: build.buildDate, compiler: build.compiler, git_commit: build.gitCommit, git_tree_state: build.gitTreeState,
      git_version: build.gitVersion, go_version: build.goVersion, major: build.major, minor: build.minor, platform: build.platform,
    }).set(1);
    this.requests.startInflightReports();
  }

  /** The metrics of a watch of one group, version and kind (looked up once per watch). */
  watchOf(group: string, version: string, kind: string): WatchEventMetrics {
    const key = `${group}\0${version}\0${kind}`;
    let m = this.watchChildren.get(key);
    if (!m) {
      const events = this.watchEvents.series({ group, kind, version });
      const sizes = this.watchEventSizes.series({ group, kind, version });
      m = { sent: (bytes) => { events.inc(); sizes.observe(bytes); } };
      this.watchChildren.set(key, m);
    }
    return m;
  }

  /** One authentication: its result, the user it found (on success), how long it took. */
  authenticated(result: AuthenticationResult, userName: string | undefined, seconds: number): void {
    let c = this.authChildren.get(result);
    if (!c) {
      c = { attempts: this.authAttempts.series({ result }), duration: this.authDuration.series({ result }) };
      this.authChildren.set(result, c);
    }
    c.attempts.inc();
    c.duration.observe(seconds);
    if (userName !== undefined) {
      const username = compressedUsername(userName);
      let users = this.userChildren.get(username);
      if (!users) {
        users = this.authUsers.series({ username });
        this.userChildren.set(username, users);
      }
      users.inc();
    }
  }

  /** The text exposition: this server's families, then the process's. */
  async exposition(): Promise<string> {
    const own = await this.registry.metrics();
    return withNaNSpelled(`${own}${await processMetrics().metrics()}`);
  }

  /** Every family of this server back to nothing (the reference's DELETE /metrics). */
  reset(): void {
    this.registry.resetMetrics();
    this.requests.reset();
  }

  stop(): void {
    this.requests.stop();
  }
}
