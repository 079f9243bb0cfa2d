// The `endpoints.kubernetes.io/last-change-trigger-time` annotation, as the reference computes it:
// for a Service seen for the first time, its creation; afterwards, the earliest of the changes
// since the previous sync (a pod's Ready transition, the Service's creation); none when nothing
// it tracks changed.
import type { JsonObject } from '../../json.js';
import { metadataOf } from '../../registry/objects.js';
import { readyCondition } from '../kit/owned.js';

export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

interface ServiceState {
  serviceTime: number;
  podTimes: Map<string, number>;
}

function timeOf(value: unknown): number {
  const t = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(t) ? t : 0;
}

/** RFC 3339 with as many fractional digits as needed (Go's RFC3339Nano). */
export function formatTriggerTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

export class TriggerTimeTracker {
  private readonly states = new Map<string, ServiceState>();

  /** The trigger time to annotate (ms since the epoch), 0 for none; remembers what it saw. */
  compute(key: string, service: JsonObject, pods: JsonObject[]): number {
    const state = this.states.get(key);
    let earliest = 0;
    const consider = (t: number) => {
      if (earliest === 0 || t < earliest) earliest = t;
    };
    const podTimes = new Map<string, number>();
    for (const pod of pods) {
      const t = timeOf(readyCondition(pod)?.['lastTransitionTime']);
      if (t === 0) continue;
      const name = String(metadataOf(pod)['name']);
      podTimes.set(name, t);
      if (t > (state?.podTimes.get(name) ?? 0)) consider(t);
    }
    const serviceTime = timeOf(metadataOf(service)['creationTimestamp']);
    if (serviceTime > (state?.serviceTime ?? 0)) consider(serviceTime);
    this.states.set(key, { serviceTime, podTimes });
    return state ? earliest : serviceTime;
  }

  forget(key: string): void {
    this.states.delete(key);
  }
}
