// The request metrics of the reference's endpoints: apiserver_request_total,
// apiserver_request_duration_seconds and apiserver_response_sizes for every request a route
// answered, apiserver_longrunning_requests while watches (and other long-running requests) last,
// apiserver_requested_deprecated_apis, and apiserver_current_inflight_requests (the most requests
// of each kind in flight during the last second). Recording is on every request's path, so the
// children of each label tuple are made once and kept under one string key.
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  counter, CURRENT_INFLIGHT_REQUESTS, gauge, histogram, LONGRUNNING_REQUESTS, REQUEST_DURATION, REQUEST_TOTAL,
  REQUESTED_DEPRECATED_APIS, RESPONSE_SIZES,
} from './families.js';
import type { MetricScope } from './request-labels.js';

/** What a request addressed, as its metrics label it ('' for what it has not). */
export interface Endpoint {
  group: string;
  version: string;
  resource: string;
  /** For a non-resource path the reference reports (health), the path. */
  subresource: string;
  scope: MetricScope;
  /** `apiserver` for API requests; '' for the health paths, as the reference. */
  component: string;
}

export const APISERVER_COMPONENT = 'apiserver';

/** What one finished request adds to: its counter, its latency and (for reads) its size. */
interface RequestChildren {
  total: Counter.Internal;
  duration: Histogram.Internal<string>;
  size: Histogram.Internal<string> | undefined;
}

/** How often the in-flight watermark is reported, and forgotten (the reference's period). */
const INFLIGHT_PERIOD_MS = 1000;

export class RequestMetrics {
  private readonly total: Counter<string>;
  private readonly duration: Histogram<string>;
  private readonly sizes: Histogram<string>;
  private readonly longRunning: Gauge<string>;
  private readonly deprecatedApis: Gauge<string>;
  private readonly inflight: Gauge<string>;
  private readonly children = new Map<string, RequestChildren>();
  private readonly longRunningChildren = new Map<string, Gauge.Internal<string>>();
  private readonly deprecatedSeen = new Set<string>();
  private readOnlyInFlight = 0;
  private mutatingInFlight = 0;
  private readOnlyMark = 0;
  private mutatingMark = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(registry: Registry) {
    this.total = counter(registry, REQUEST_TOTAL);
    this.duration = histogram(registry, REQUEST_DURATION);
    this.sizes = histogram(registry, RESPONSE_SIZES);
    this.longRunning = gauge(registry, LONGRUNNING_REQUESTS);
    this.deprecatedApis = gauge(registry, REQUESTED_DEPRECATED_APIS);
    this.inflight = gauge(registry, CURRENT_INFLIGHT_REQUESTS);
    // Both kinds are reported from the start, as the reference's first tick does.
    this.inflight.labels({ request_kind: 'mutating' }).set(0);
    this.inflight.labels({ request_kind: 'readOnly' }).set(0);
  }

  /** A request a route answered: `code` its status, `seconds` since it was received, `bytes` its body (reads only). */
  observe(verb: string, dryRun: string, e: Endpoint, code: number, seconds: number, bytes: number): void {
    const key = `${verb}\0${dryRun}\0${e.group}\0${e.version}\0${e.resource}\0${e.subresource}\0${e.scope}\0${e.component}\0${code}`;
    let c = this.children.get(key);
    if (!c) {
      c = this.childrenOf(verb, dryRun, e, code);
      this.children.set(key, c);
    }
    c.total.inc();
    c.duration.observe(seconds);
    c.size?.observe(bytes);
  }

  private childrenOf(verb: string, dryRun: string, e: Endpoint, code: number): RequestChildren {
    const { group, version, resource, subresource, scope, component } = e;
    return {
      total: this.total.labels({ code: String(code), component, dry_run: dryRun, group, resource, scope, subresource, verb, version }),
      duration: this.duration.labels({ component, dry_run: dryRun, group, resource, scope, subresource, verb, version }),
      // Only reads' sizes are of interest to the reference.
      size: verb === 'GET' || verb === 'LIST' ? this.sizes.labels({ component, group, resource, scope, subresource, verb, version }) : undefined,
    };
  }

  /** A long-running request begins; the returned function ends it (once). */
  beginLongRunning(verb: string, e: Endpoint): () => void {
    const key = `${verb}\0${e.group}\0${e.version}\0${e.resource}\0${e.subresource}\0${e.scope}\0${e.component}`;
    let g = this.longRunningChildren.get(key);
    if (!g) {
      const { group, version, resource, subresource, scope, component } = e;
      g = this.longRunning.labels({ component, group, resource, scope, subresource, verb, version });
      this.longRunningChildren.set(key, g);
    }
    const child = g;
    child.inc();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      child.dec();
    };
  }

  /** A deprecated version was requested: its series is set to 1 (and stays). */
  deprecatedRequested(group: string, version: string, resource: string, subresource: string, removedRelease: string): void {
    const key = `${group}\0${version}\0${resource}\0${subresource}\0${removedRelease}`;
    if (this.deprecatedSeen.has(key)) return;
    this.deprecatedSeen.add(key);
    this.deprecatedApis.labels({ group, removed_release: removedRelease, resource, subresource, version }).set(1);
  }

  /** A request that is not long-running starts executing (`mutating`: not get, list or watch). */
  enter(mutating: boolean): void {
    if (mutating) {
      if (++this.mutatingInFlight > this.mutatingMark) this.mutatingMark = this.mutatingInFlight;
    } else if (++this.readOnlyInFlight > this.readOnlyMark) {
      this.readOnlyMark = this.readOnlyInFlight;
    }
  }

  leave(mutating: boolean): void {
    if (mutating) this.mutatingInFlight--;
    else this.readOnlyInFlight--;
  }

  /** Reports each second's highest in-flight counts, then starts the next second from none (as the reference). */
  startInflightReports(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.inflight.labels({ request_kind: 'readOnly' }).set(this.readOnlyMark);
      this.inflight.labels({ request_kind: 'mutating' }).set(this.mutatingMark);
      this.readOnlyMark = 0;
      this.mutatingMark = 0;
    }, INFLIGHT_PERIOD_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Forgets every request series (DELETE /metrics). */
  reset(): void {
    this.children.clear();
    this.longRunningChildren.clear();
    this.deprecatedSeen.clear();
  }
}
