// The metric families kube-apiserver 1.25 serves, as data: name, help (prefixed with the stability
// level, as the reference's component-base does), label names and buckets. Label names are listed
// in alphabetical order, the order the reference's exposition prints them in; every label object
// handed to prom-client is built with its keys in that order too.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PresummedCounter, PresummedHistogram } from './presummed.js';
import { TimingRatioHistogram } from './timing-ratio.js';

type Stability = 'STABLE' | 'ALPHA';

interface Family<L extends string> {
  name: string;
  help: string;
  stability: Stability;
  labels: readonly L[];
}

interface HistogramFamily<L extends string> extends Family<L> {
  buckets: readonly number[];
}

/** start, start·factor, … (count of them), as the reference's ExponentialBuckets. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

/** The request latency buckets (apiserver_request_duration_seconds and etcd_request_duration_seconds share them). */
const LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

const REQUEST_LABELS = ['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'] as const;
const ENDPOINT_LABELS = ['component', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'] as const;
const LATENCY_LABELS = ['component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'] as const;
const WATCH_LABELS = ['group', 'kind', 'version'] as const;

export const REQUEST_TOTAL: Family<(typeof REQUEST_LABELS)[number]> = {
  name: 'apiserver_request_total', stability: 'STABLE', labels: REQUEST_LABELS,
  help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
};
export const REQUEST_DURATION: HistogramFamily<(typeof LATENCY_LABELS)[number]> = {
  name: 'apiserver_request_duration_seconds', stability: 'STABLE', labels: LATENCY_LABELS, buckets: LATENCY_BUCKETS,
  help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
};
export const REQUEST_SLO_DURATION: HistogramFamily<(typeof ENDPOINT_LABELS)[number]> = {
  name: 'apiserver_request_slo_duration_seconds', stability: 'ALPHA', labels: ENDPOINT_LABELS,
  buckets: [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
  help: 'Response latency distribution (not counting webhook duration) in seconds for each verb, group, version, resource, subresource, scope and component.',
};
export const BUILD_INFO: Family<'build_date' | 'compiler' | 'git_commit' | 'git_tree_state' | 'git_version' | 'go_version' | 'major' | 'minor' | 'platform'> = {
  name: 'kubernetes_build_info', stability: 'ALPHA',
  labels: ['build_date', 'compiler', 'git_commit', 'git_tree_state', 'git_version', 'go_version', 'major', 'minor', 'platform'],
  help: "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
};
export const RESPONSE_SIZES: HistogramFamily<(typeof ENDPOINT_LABELS)[number]> = {
  name: 'apiserver_response_sizes', stability: 'STABLE', labels: ENDPOINT_LABELS, buckets: exponentialBuckets(1000, 10, 7),
  help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
};
export const LONGRUNNING_REQUESTS: Family<(typeof ENDPOINT_LABELS)[number]> = {
  name: 'apiserver_longrunning_requests', stability: 'STABLE', labels: ENDPOINT_LABELS,
  help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
};
export const REQUESTED_DEPRECATED_APIS: Family<'group' | 'removed_release' | 'resource' | 'subresource' | 'version'> = {
  name: 'apiserver_requested_deprecated_apis', stability: 'STABLE', labels: ['group', 'removed_release', 'resource', 'subresource', 'version'],
  help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
};
export const CURRENT_INFLIGHT_REQUESTS: Family<'request_kind'> = {
  name: 'apiserver_current_inflight_requests', stability: 'STABLE', labels: ['request_kind'],
  help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
};
export const WATCH_EVENTS: Family<(typeof WATCH_LABELS)[number]> = {
  name: 'apiserver_watch_events_total', stability: 'ALPHA', labels: WATCH_LABELS,
  help: 'Number of events sent in watch clients',
};
export const WATCH_EVENTS_SIZES: HistogramFamily<(typeof WATCH_LABELS)[number]> = {
  name: 'apiserver_watch_events_sizes', stability: 'ALPHA', labels: WATCH_LABELS, buckets: exponentialBuckets(1024, 2, 8),
  help: 'Watch event size distribution in bytes',
};
export const STORAGE_OBJECTS: Family<'resource'> = {
  name: 'apiserver_storage_objects', stability: 'STABLE', labels: ['resource'],
  help: 'Number of stored objects at the time of last check split by kind.',
};
export const UNAVAILABLE_APISERVICE: Family<'name'> = {
  name: 'aggregator_unavailable_apiservice', stability: 'ALPHA', labels: ['name'],
  help: 'Gauge of APIServices which are marked as unavailable broken down by APIService name.',
};
export const UNAVAILABLE_APISERVICE_TOTAL: Family<'name' | 'reason'> = {
  name: 'aggregator_unavailable_apiservice_total', stability: 'ALPHA', labels: ['name', 'reason'],
  help: 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.',
};
export const ETCD_REQUEST_DURATION: HistogramFamily<'operation' | 'type'> = {
  name: 'etcd_request_duration_seconds', stability: 'ALPHA', labels: ['operation', 'type'], buckets: LATENCY_BUCKETS,
  help: 'Etcd request latency in seconds for each operation and object type.',
};
export const ADMISSION_STEP_DURATION: HistogramFamily<'operation' | 'rejected' | 'type'> = {
  name: 'apiserver_admission_step_admission_duration_seconds', stability: 'STABLE', labels: ['operation', 'rejected', 'type'], buckets: ADMISSION_BUCKETS,
  help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
};
export const ADMISSION_CONTROLLER_DURATION: HistogramFamily<'name' | 'operation' | 'rejected' | 'type'> = {
  name: 'apiserver_admission_controller_admission_duration_seconds', stability: 'STABLE', labels: ['name', 'operation', 'rejected', 'type'], buckets: ADMISSION_BUCKETS,
  help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
};
export const ADMISSION_WEBHOOK_DURATION: HistogramFamily<'name' | 'operation' | 'rejected' | 'type'> = {
  name: 'apiserver_admission_webhook_admission_duration_seconds', stability: 'STABLE', labels: ['name', 'operation', 'rejected', 'type'], buckets: ADMISSION_BUCKETS,
  help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
};
export const ADMISSION_WEBHOOK_REQUESTS: Family<'code' | 'name' | 'operation' | 'rejected' | 'type'> = {
  name: 'apiserver_admission_webhook_request_total', stability: 'ALPHA', labels: ['code', 'name', 'operation', 'rejected', 'type'],
  help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
};
export const AUTHENTICATION_ATTEMPTS: Family<'result'> = {
  name: 'authentication_attempts', stability: 'ALPHA', labels: ['result'],
  help: 'Counter of authenticated attempts.',
};
export const AUTHENTICATED_USER_REQUESTS: Family<'username'> = {
  name: 'authenticated_user_requests', stability: 'ALPHA', labels: ['username'],
  help: 'Counter of authenticated requests broken out by username.',
};
export const AUTHENTICATION_DURATION: HistogramFamily<'result'> = {
  name: 'authentication_duration_seconds', stability: 'ALPHA', labels: ['result'], buckets: exponentialBuckets(0.001, 2, 15),
  help: 'Authentication duration in seconds broken out by result.',
};

// API Priority and Fairness (the reference's apiserver_flowcontrol_* families a dashboard reads).
const APF_QUEUE_LENGTH_BUCKETS = [0, 10, 25, 50, 100, 250, 500, 1000];
const APF_DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];
const APF_PAIR = ['flow_schema', 'priority_level'] as const;
type ApfPair = (typeof APF_PAIR)[number];

export const APF_REJECTED: Family<ApfPair | 'reason'> = {
  name: 'apiserver_flowcontrol_rejected_requests_total', stability: 'ALPHA', labels: ['flow_schema', 'priority_level', 'reason'],
  help: 'Number of requests rejected by API Priority and Fairness subsystem',
};
export const APF_DISPATCHED: Family<ApfPair> = {
  name: 'apiserver_flowcontrol_dispatched_requests_total', stability: 'ALPHA', labels: APF_PAIR,
  help: 'Number of requests executed by API Priority and Fairness subsystem',
};
export const APF_CURRENT_INQUEUE: Family<ApfPair> = {
  name: 'apiserver_flowcontrol_current_inqueue_requests', stability: 'ALPHA', labels: APF_PAIR,
  help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
};
export const APF_QUEUE_LENGTH: HistogramFamily<ApfPair> = {
  name: 'apiserver_flowcontrol_request_queue_length_after_enqueue', stability: 'ALPHA', labels: APF_PAIR, buckets: APF_QUEUE_LENGTH_BUCKETS,
  help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued',
};
export const APF_CONCURRENCY_LIMIT: Family<'priority_level'> = {
  name: 'apiserver_flowcontrol_request_concurrency_limit', stability: 'ALPHA', labels: ['priority_level'],
  help: 'Shared concurrency limit in the API Priority and Fairness subsystem',
};
export const APF_CURRENT_EXECUTING: Family<ApfPair> = {
  name: 'apiserver_flowcontrol_current_executing_requests', stability: 'ALPHA', labels: APF_PAIR,
  help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
};
export const APF_CONCURRENCY_IN_USE: Family<ApfPair> = {
  name: 'apiserver_flowcontrol_request_concurrency_in_use', stability: 'ALPHA', labels: APF_PAIR,
  help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
};
export const APF_WAIT_DURATION: HistogramFamily<ApfPair | 'execute'> = {
  name: 'apiserver_flowcontrol_request_wait_duration_seconds', stability: 'ALPHA', labels: ['execute', 'flow_schema', 'priority_level'], buckets: APF_DURATION_BUCKETS,
  help: 'Length of time a request spent waiting in its queue',
};
export const APF_EXECUTION_DURATION: HistogramFamily<ApfPair | 'type'> = {
  name: 'apiserver_flowcontrol_request_execution_seconds', stability: 'ALPHA', labels: ['flow_schema', 'priority_level', 'type'], buckets: APF_DURATION_BUCKETS,
  help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem',
};

export const APF_WORK_ESTIMATED_SEATS: HistogramFamily<ApfPair> = {
  name: 'apiserver_flowcontrol_work_estimated_seats', stability: 'ALPHA', labels: APF_PAIR, buckets: [1, 2, 4, 10],
  help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness',
};
export const APF_WATCH_COUNT_SAMPLES: HistogramFamily<ApfPair> = {
  name: 'apiserver_flowcontrol_watch_count_samples', stability: 'ALPHA', labels: APF_PAIR, buckets: [0, 1, 10, 100, 1000, 10000],
  help: 'count of watchers for mutating requests in API Priority and Fairness',
};
export const APF_NO_ACCOMMODATION: Family<ApfPair> = {
  name: 'apiserver_flowcontrol_request_dispatch_no_accommodation_total', stability: 'ALPHA', labels: APF_PAIR,
  help: 'Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats',
};
export const APF_CURRENT_R: Family<'priority_level'> = {
  name: 'apiserver_flowcontrol_current_r', stability: 'ALPHA', labels: ['priority_level'],
  help: 'R(time of last change)',
};

export const APF_DISPATCH_R: Family<'priority_level'> = {
  name: 'apiserver_flowcontrol_dispatch_r', stability: 'ALPHA', labels: ['priority_level'],
  help: 'R(time of last dispatch)',
};
export const APF_LATEST_S: Family<'priority_level'> = {
  name: 'apiserver_flowcontrol_latest_s', stability: 'ALPHA', labels: ['priority_level'],
  help: 'S(most recently dispatched request)',
};
export const APF_NEXT_S_BOUNDS: Family<'bound' | 'priority_level'> = {
  name: 'apiserver_flowcontrol_next_s_bounds', stability: 'ALPHA', labels: ['bound', 'priority_level'],
  help: 'min and max, over queues, of S(oldest waiting request in queue)',
};
export const APF_NEXT_DISCOUNTED_S_BOUNDS: Family<'bound' | 'priority_level'> = {
  name: 'apiserver_flowcontrol_next_discounted_s_bounds', stability: 'ALPHA', labels: ['bound', 'priority_level'],
  help: 'min and max, over queues, of S(oldest waiting request in queue) - estimated work in progress',
};
/** Timing ratio histograms (timing-ratio.ts): the reference writes their help "EXPERIMENTAL: [ALPHA] …". */
export const APF_SEAT_UTILIZATION: HistogramFamily<'phase' | 'priority_level'> = {
  name: 'apiserver_flowcontrol_priority_level_seat_utilization', stability: 'ALPHA', labels: ['phase', 'priority_level'],
  buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1],
  help: 'Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes)',
};
export const APF_REQUEST_UTILIZATION: HistogramFamily<'phase' | 'priority_level'> = {
  name: 'apiserver_flowcontrol_priority_level_request_utilization', stability: 'ALPHA', labels: ['phase', 'priority_level'],
  buckets: [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1],
  help: 'Observations, at the end of every nanosecond, of number of requests (as a fraction of the relevant limit) waiting or in any stage of execution (but only initial stage for WATCHes)',
};
export const APF_READ_VS_WRITE: HistogramFamily<'phase' | 'request_kind'> = {
  name: 'apiserver_flowcontrol_read_vs_write_current_requests', stability: 'ALPHA', labels: ['phase', 'request_kind'],
  buckets: [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1],
  help: 'Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution',
};

const helpOf = (f: Family<string>): string => `[${f.stability}] ${f.help}`;

export function timingRatioHistogram<L extends string>(registry: Registry, f: HistogramFamily<L>): TimingRatioHistogram<L> {
  return new TimingRatioHistogram<L>({ name: f.name, help: `EXPERIMENTAL: ${helpOf(f)}`, labelNames: f.labels, buckets: f.buckets, registry });
}

export function counter<L extends string>(registry: Registry, f: Family<L>): Counter<L> {
  return new Counter<L>({ name: f.name, help: helpOf(f), labelNames: f.labels, registers: [registry] });
}

export function gauge<L extends string>(registry: Registry, f: Family<L>, collect?: (this: Gauge<L>) => Promise<void> | void): Gauge<L> {
  return new Gauge<L>({ name: f.name, help: helpOf(f), labelNames: f.labels, registers: [registry], ...(collect ? { collect } : {}) });
}

export function histogram<L extends string>(registry: Registry, f: HistogramFamily<L>): Histogram<L> {
  return new Histogram<L>({ name: f.name, help: helpOf(f), labelNames: f.labels, buckets: [...f.buckets], registers: [registry] });
}

/** A counter of the per-request path (see presummed.ts). */
export function presummedCounter<L extends string>(registry: Registry, f: Family<L>): PresummedCounter<L> {
  return new PresummedCounter<L>({ name: f.name, help: helpOf(f), labelNames: f.labels, registry });
}

/** A histogram of the per-request path (see presummed.ts). */
export function presummedHistogram<L extends string>(registry: Registry, f: HistogramFamily<L>): PresummedHistogram<L> {
  return new PresummedHistogram<L>({ name: f.name, help: helpOf(f), labelNames: f.labels, buckets: f.buckets, registry });
}
