// The request metrics of the reference's endpoints: apiserver_request_total,
// apiserver_request_duration_seconds and apiserver_response_sizes for every request a route
// answered, apiserver_longrunning_requests while watches (and other long-running requests) last,
// apiserver_requested_deprecated_apis, and apiserver_current_inflight_requests (the most requests
// of each kind in flight during the last second). Recording is on every request's path, so the
// children of each label tuple are made once and kept, found again without making a string.
import type { Gauge, Registry } from 'prom-client';
import {
  CURRENT_INFLIGHT_REQUESTS, gauge, LONGRUNNING_REQUESTS, presummedCounter, presummedHistogram, REQUEST_DURATION, REQUEST_SLO_DURATION, REQUEST_TOTAL,
  REQUESTED_DEPRECATED_APIS, RESPONSE_SIZES,
} from './families.js';
import type { CounterSeries, HistogramSeries, PresummedCounter, PresummedHistogram } from './presummed.js';
import type { MetricScope } from './request-labels.js';
import { innerMap } from '../maps.js';

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
export interface RequestChildren {
  total: CounterSeries<string>;
  duration: HistogramSeries<string>;
  slo: HistogramSeries<string>;
  size: HistogramSeries<string> | undefined;
}

/** How often the in-flight watermark is reported, and forgotten (the reference's period). */
const INFLIGHT_PERIOD_MS = 1000;

export class RequestMetrics {
  private readonly total: PresummedCounter<string>;
  private readonly duration: PresummedHistogram<string>;
  private readonly sizes: PresummedHistogram<string>;
  private readonly slo: PresummedHistogram<string>;
  /** The duration and size series of each label set but the code (several codes share them). */
  private readonly latencySeries = new Map<string, { duration: HistogramSeries<string>; slo: HistogramSeries<string>; size: HistogramSeries<string> | undefined }>();
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
    this.total = presummedCounter(registry, REQUEST_TOTAL);
    this.duration = presummedHistogram(registry, REQUEST_DURATION);
    this.slo = presummedHistogram(registry, REQUEST_SLO_DURATION);
    this.sizes = presummedHistogram(registry, RESPONSE_SIZES);
    this.longRunning = gauge(registry, LONGRUNNING_REQUESTS);
    this.deprecatedApis = gauge(registry, REQUESTED_DEPRECATED_APIS);
    this.inflight = gauge(registry, CURRENT_INFLIGHT_REQUESTS);
    // Both kinds are reported from the start, as the reference's first tick does.
    this.inflight.labels({ request_kind: 'mutating' }).set(0);
    this.inflight.labels({ request_kind: 'readOnly' }).set(0);
  }

  /**
   * The recorder of one endpoint of the API: what `info` (an object that lives as long as the
   * endpoint, such as the served version's resource info) serves at `subresource` in `scope`.
   * Looked up by object identity, then scope and subresource, so a request's lookup builds no
   * string (nor a closure) at all.
   */
  endpoint(info: Pick<Endpoint, 'group' | 'version' | 'resource'>, subresource: string, scope: MetricScope): EndpointMetrics {
    const bySubresource = innerMap(innerMap(this.endpoints, info), scope);
    let m = bySubresource.get(subresource);
    if (!m) {
      m = new EndpointMetrics({ group: info.group, version: info.version, resource: info.resource, subresource, scope, component: APISERVER_COMPONENT }, this);
      bySubresource.set(subresource, m);
    }
    return m;
  }

  private readonly endpoints = new WeakMap<object, Map<MetricScope, Map<string, EndpointMetrics>>>();
  private readonly byLabels = new Map<string, EndpointMetrics>();

  /** A request a route answered, by its labels (paths outside the API: the health checks). */
  observe(verb: string, dryRun: string, e: Endpoint, code: number, seconds: number, bytes: number): void {
    const key = `${e.group}\0${e.version}\0${e.resource}\0${e.subresource}\0${e.scope}\0${e.component}`;
    let m = this.byLabels.get(key);
    if (!m) {
      m = new EndpointMetrics(e, this);
      this.byLabels.set(key, m);
    }
    m.observe(verb, dryRun, code, seconds, bytes, seconds);
  }

  /** The series of one label set (one endpoint's verb, dry run and code); shared by endpoints that label alike. */
  childrenOf(verb: string, dryRun: string, e: Endpoint, code: number): RequestChildren {
    const { group, version, resource, subresource, scope, component } = e;
    const totalKey = `${verb}\0${dryRun}\0${group}\0${version}\0${resource}\0${subresource}\0${scope}\0${component}\0${code}`;
    const found = this.children.get(totalKey);
    if (found) return found;
    const latencyKey = `${verb}\0${dryRun}\0${group}\0${version}\0${resource}\0${subresource}\0${scope}\0${component}`;
    let latency = this.latencySeries.get(latencyKey);
    if (!latency) {
      latency = {
        duration: this.duration.series({ component, dry_run: dryRun, group, resource, scope, subresource, verb, version }),
        // No dry run label on these two: one series per label set, whatever the dry run.
        slo: this.endpointSeries(this.slo, this.sloSeriesByKey, verb, e),
        // Only reads' sizes are of interest to the reference.
        size: verb === 'GET' || verb === 'LIST' ? this.endpointSeries(this.sizes, this.sizeSeriesByKey, verb, e) : undefined,
      };
      this.latencySeries.set(latencyKey, latency);
    }
    const children = { total: this.total.series({ code: String(code), component, dry_run: dryRun, group, resource, scope, subresource, verb, version }), ...latency };
    this.children.set(totalKey, children);
    return children;
  }
  private readonly sizeSeriesByKey = new Map<string, HistogramSeries<string>>();
  private readonly sloSeriesByKey = new Map<string, HistogramSeries<string>>();

  /** A series of a family labelled by endpoint and verb only, shared by every dry run and code. */
  private endpointSeries(family: PresummedHistogram<string>, byKey: Map<string, HistogramSeries<string>>, verb: string, e: Endpoint): HistogramSeries<string> {
    const { group, version, resource, subresource, scope, component } = e;
    const key = `${verb}\0${group}\0${version}\0${resource}\0${subresource}\0${scope}\0${component}`;
    let s = byKey.get(key);
    if (!s) {
      s = family.series({ component, group, resource, scope, subresource, verb, version });
      byKey.set(key, s);
    }
    return s;
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

  /** After DELETE /metrics: the deprecated APIs are set again when next requested (the other series are zeroed in place). */
  reset(): void {
    this.deprecatedSeen.clear();
  }
}

/** One endpoint's series, by verb, dry run and code. */
export class EndpointMetrics {
  /** By verb, dry run and code: found with no string made (a key made of them cost each request a few tenths of a microsecond). */
  private readonly children = new Map<string, Map<string, Map<number, RequestChildren>>>();

  constructor(readonly labels: Endpoint, private readonly requests: RequestMetrics) {}

  /** `sloSeconds`: the latency without the time spent calling webhooks. */
  observe(verb: string, dryRun: string, code: number, seconds: number, bytes: number, sloSeconds: number): void {
    const byCode = innerMap(innerMap(this.children, verb), dryRun);
    let c = byCode.get(code);
    if (!c) {
      c = this.requests.childrenOf(verb, dryRun, this.labels, code);
      byCode.set(code, c);
    }
    c.total.inc();
    c.duration.observe(seconds);
    c.slo.observe(sloSeconds);
    c.size?.observe(bytes);
  }
}
