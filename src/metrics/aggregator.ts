// The aggregator's availability families: aggregator_unavailable_apiservice (1 for each APIService
// not Available, 0 for the others, read from the APIServices when scraped, so a deleted one leaves
// no series) and aggregator_unavailable_apiservice_total (each status write that leaves an
// APIService unavailable, by its reason, as the reference's availability controller counts).
import type { Counter, Registry } from 'prom-client';
import { counter, gauge, UNAVAILABLE_APISERVICE, UNAVAILABLE_APISERVICE_TOTAL } from './families.js';

/** Every APIService's name and whether it is Available now. */
export type ApiServiceStates = () => Iterable<readonly [name: string, available: boolean]>;

export class AggregatorMetrics {
  private readonly unavailableWrites: Counter<'name' | 'reason'>;
  private states: ApiServiceStates | undefined;

  constructor(registry: Registry) {
    const metrics = this;
    gauge(registry, UNAVAILABLE_APISERVICE, function collect() {
      if (!metrics.states) return;
      this.reset();
      for (const [name, available] of metrics.states()) this.labels({ name }).set(available ? 0 : 1);
    });
    this.unavailableWrites = counter(registry, UNAVAILABLE_APISERVICE_TOTAL);
  }

  /** Where the gauge reads the APIServices from (set once the aggregator exists). */
  followApiServices(states: ApiServiceStates): void {
    this.states = states;
  }

  /** An APIService's status was written as not Available, for `reason`. */
  markedUnavailable(name: string, reason: string): void {
    this.unavailableWrites.labels({ name, reason }).inc();
  }
}
