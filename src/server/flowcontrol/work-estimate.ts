// How many seats a request takes, as 1.25's work estimator says: a LIST by the objects it will go
// through (one seat per 100, from 1 to the level's maximum), a create/update/patch/delete by the
// watches its event will reach (1 seat while it runs, then ⌈watches/10⌉ seats, at most the
// maximum, held afterwards for as long as 5 ms per watch spread over them), anything else 1 seat.
// The watches are the ones this filter let through (the reference's watch tracker); the object
// counts are the store's, read periodically as the reference's count tracker reads them.
import type { RequestInfo, ResourceRequestInfo } from '../../api/request-info.js';

export interface WorkEstimate {
  /** Seats while the request runs. */
  readonly initialSeats: number;
  /** Seats held after it, for `additionalLatencyMs` (its watch events' work). */
  readonly finalSeats: number;
  readonly additionalLatencyMs: number;
}

const MINIMUM_SEATS = 1;
/** The most seats any request takes (the reference's maximumSeatsLimit). */
export const MAXIMUM_SEATS_LIMIT = 10;
const OBJECTS_PER_SEAT = 100;
const WATCHES_PER_SEAT = 10;
const EVENT_ADDITIONAL_MS = 5;
/** A level's maximum is 15% of its concurrency limit (10 of the default 600 shared) … */
const MAX_SEATS_SHARE = 0.15;

export const ONE_SEAT: WorkEstimate = { initialSeats: MINIMUM_SEATS, finalSeats: 0, additionalLatencyMs: 0 };

/** … and no more than its limit over its hand size, and at least 1. */
export function levelMaxSeats(concurrencyLimit: number, handSize: number): number {
  const byHand = handSize > 0 ? Math.floor(concurrencyLimit / handSize) : Number.POSITIVE_INFINITY;
  return Math.max(1, Math.min(Math.ceil(concurrencyLimit * MAX_SEATS_SHARE), byHand));
}

/** The seats of a request both while it runs and after: what it is charged and must find free. */
export function maxSeats(e: WorkEstimate): number {
  return Math.max(e.initialSeats, e.finalSeats);
}

export interface WorkCounts {
  /** Objects stored of a resource ("configmaps", "deployments.apps"); undefined when not known. */
  objects(groupResource: string): number | undefined;
  /** Watches that a write of this request's object reaches. */
  watches(info: ResourceRequestInfo): number;
}

export interface EstimateObserver {
  /** A mutating request's watch count (apiserver_flowcontrol_watch_count_samples). */
  watchCount(count: number): void;
}

const MUTATING = new Set(['create', 'update', 'patch', 'delete']);

export function estimateWork(info: RequestInfo, query: URLSearchParams, counts: WorkCounts, levelMax: number, observer?: EstimateObserver): WorkEstimate {
  const max = levelMax > 0 && levelMax <= MAXIMUM_SEATS_LIMIT ? levelMax : MAXIMUM_SEATS_LIMIT;
  if (!info.isResourceRequest) return ONE_SEAT;
  if (info.verb === 'list') return { initialSeats: listSeats(info, query, counts, max), finalSeats: 0, additionalLatencyMs: 0 };
  if (!MUTATING.has(info.verb)) return ONE_SEAT;
  const watches = counts.watches(info);
  observer?.watchCount(watches);
  if (watches < WATCHES_PER_SEAT) return ONE_SEAT;
  const seats = Math.ceil(watches / WATCHES_PER_SEAT);
  // The events' work (seats × 5 ms) kept whole when the seats are capped: fewer seats, held longer.
  const finalSeats = Math.min(seats, max);
  return { initialSeats: MINIMUM_SEATS, finalSeats, additionalLatencyMs: (seats * EVENT_ADDITIONAL_MS) / finalSeats };
}

function listSeats(info: ResourceRequestInfo, query: URLSearchParams, counts: WorkCounts, max: number): number {
  if (info.name) return MINIMUM_SEATS;
  const stored = counts.objects(info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource);
  if (stored === undefined) return MINIMUM_SEATS;
  if (stored < 0) return max;
  const limitParam = Number(query.get('limit') ?? 0);
  const resourceVersion = query.get('resourceVersion') ?? '';
  const paged = Number.isInteger(limitParam) && limitParam > 0;
  const limit = paged && limitParam < stored ? limitParam : stored;
  // From the watch cache unless the list must read the store (as the reference decides it).
  const fromStorage = resourceVersion === '' || (query.get('continue') ?? '') !== '' || (paged && resourceVersion !== '0') || query.get('resourceVersionMatch') === 'Exact';
  const processed = !fromStorage ? stored : query.get('fieldSelector') || query.get('labelSelector') ? stored + limit : 2 * limit;
  return Math.min(max, Math.max(MINIMUM_SEATS, Math.ceil(processed / OBJECTS_PER_SEAT)));
}

/**
 * The watches running, by group, resource, namespace and name (the reference's watch tracker): a
 * write in namespace N of object O reaches the resource's watches of every namespace, of N, and of O.
 */
export class WatchTracker {
  private readonly counts = new Map<string, number>();

  /** Counts a watch until the returned function is called. */
  register(info: ResourceRequestInfo, query: URLSearchParams): () => void {
    const name = info.name ?? nameFromFieldSelector(query.get('fieldSelector') ?? '');
    const key = watchKey(info.apiGroup, info.resource, info.namespace ?? '', name ?? '');
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }

  /** The watches a write described by `info` reaches. */
  interested(info: ResourceRequestInfo): number {
    if (this.counts.size === 0) return 0;
    const group = info.apiGroup;
    const resource = info.resource;
    let n = this.counts.get(watchKey(group, resource, '', '')) ?? 0;
    if (info.namespace) n += this.counts.get(watchKey(group, resource, info.namespace, '')) ?? 0;
    if (info.name) n += this.counts.get(watchKey(group, resource, info.namespace ?? '', info.name)) ?? 0;
    return n;
  }
}

const watchKey = (group: string, resource: string, namespace: string, name: string): string => `${group}\0${resource}\0${namespace}\0${name}`;

function nameFromFieldSelector(selector: string): string | undefined {
  for (const term of selector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}
