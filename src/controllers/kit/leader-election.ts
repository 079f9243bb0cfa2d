// Leader election on a coordination.k8s.io Lease, as kube-controller-manager's (client-go's
// leaderelection with the `leases` lock), so that when several servers share one store the
// controllers run on one of them at a time. Each candidate tries every retry period: it takes the
// Lease when there is none, when it holds it (a renewal), or when the holder's record has not
// changed for a lease duration of its own clock (a record is judged by when it was last seen to
// change, never by the holder's timestamps, so clocks need not agree). Writes are compare-and-swap
// on the Lease's resourceVersion: of two candidates only one wins. A leader that cannot renew for
// the renew deadline stops leading (its controllers stop) and becomes a candidate again; one that
// stops releases the Lease, so another takes over at its next try rather than a lease duration later.
import { StatusError } from '../../errors.js';
import { decodeJson, isObject, type JsonObject } from '../../json.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { EventRecorder } from './events.js';

export interface LeaderElectionConfig {
  readonly namespace: string;
  readonly name: string;
  /** This candidate (the reference's `<hostname>_<uuid>`). */
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface LeadershipCallbacks {
  /** This candidate became the leader. */
  started(): Promise<void>;
  /** It is no longer (lost the Lease, or is stopping). */
  stopped(): Promise<void>;
}

/** The Lease's spec: what client-go's LeaderElectionRecord is stored as. */
interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

/** kube-controller-manager writes its Lease as its own user, not a service account. */
export const CONTROLLER_MANAGER_WRITER: WriteContext = {
  manager: 'kube-controller-manager',
  user: { name: 'system:kube-controller-manager', groups: ['system:authenticated'] },
};

/** metav1.MicroTime as the Lease holds it: RFC 3339 with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function recordOf(lease: JsonObject): LeaseRecord {
  const spec = isObject(lease.spec) ? lease.spec : {};
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
    ...(typeof spec.acquireTime === 'string' ? { acquireTime: spec.acquireTime } : {}),
    ...(typeof spec.renewTime === 'string' ? { renewTime: spec.renewTime } : {}),
    leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
  };
}

function sameRecord(a: LeaseRecord, b: LeaseRecord): boolean {
  return a.holderIdentity === b.holderIdentity && a.renewTime === b.renewTime && a.acquireTime === b.acquireTime
    && a.leaseTransitions === b.leaseTransitions && a.leaseDurationSeconds === b.leaseDurationSeconds;
}

export class LeaderElector {
  private observed: { record: LeaseRecord; at: number } | undefined;
  private leading = false;
  private lastRenewal = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly events: EventRecorder;

  constructor(
    private readonly registry: Registry,
    private readonly info: ResourceInfo,
    private readonly config: LeaderElectionConfig,
    private readonly callbacks: LeadershipCallbacks,
    private readonly writer: WriteContext = CONTROLLER_MANAGER_WRITER,
  ) {
    this.events = new EventRecorder(registry, 'kube-controller-manager', writer);
  }

  /** Whether this candidate leads now. */
  isLeader(): boolean {
    return this.leading;
  }

  /** Tries at once, then every retry period; resolves after the first try. */
  async start(): Promise<void> {
    await this.tick();
  }

  /** Stops trying; a leader stops leading and releases the Lease. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.leading) {
      this.leading = false;
      await this.callbacks.stopped();
      await this.release().catch(() => undefined);
    }
  }

  private tick(): Promise<void> {
    this.running = this.running.then(() => this.attempt()).catch((err: unknown) => console.error('leader election:', err)).finally(() => {
      if (this.stopping) return;
      this.timer = setTimeout(() => void this.tick(), this.config.retryPeriodMs);
      this.timer.unref();
    });
    return this.running;
  }

  private async attempt(): Promise<void> {
    if (this.stopping) return;
    const held = await this.tryAcquireOrRenew().catch(() => false);
    const now = Date.now();
    if (held) {
      this.lastRenewal = now;
      if (!this.leading) {
        this.leading = true;
        await this.callbacks.started();
      }
    } else if (this.leading && now - this.lastRenewal >= this.config.renewDeadlineMs) {
      this.leading = false;
      console.error(`leader election: lost the lease ${this.config.namespace}/${this.config.name}`);
      await this.callbacks.stopped();
    }
  }

  /** One try: true when this candidate holds the Lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.config;
    const now = Date.now();
    const durationSeconds = Math.round(this.config.leaseDurationMs / 1000);
    const lease = await this.registry.getObject(this.info, namespace, name);
    if (!lease) {
      const record: LeaseRecord = { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
      const made = await this.write(undefined, record);
      if (made) this.becameLeader(made);
      return made !== undefined;
    }
    const old = recordOf(lease);
    if (!this.observed || !sameRecord(this.observed.record, old)) this.observed = { record: old, at: now };
    const mine = old.holderIdentity === identity;
    if (!mine && old.holderIdentity !== '' && this.observed.at + old.leaseDurationSeconds * 1000 > now) return false;
    const record: LeaseRecord = mine
      ? { ...old, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) }
      : { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: old.leaseTransitions + 1 };
    const written = await this.write(lease, record);
    if (written && !mine) this.becameLeader(written);
    return written !== undefined;
  }

  /** Creates the Lease or swaps its spec; undefined when another write came first. */
  private async write(current: JsonObject | undefined, record: LeaseRecord): Promise<JsonObject | undefined> {
    const { namespace, name } = this.config;
    try {
      const result = current
        ? await this.registry.update(this.info, namespace, name, { ...current, spec: { ...(isObject(current.spec) ? current.spec : {}), ...record } }, undefined, this.writer)
        : await this.registry.create(this.info, namespace, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { ...record } }, this.writer);
      this.observed = { record, at: Date.now() };
      return decodeJson(result.body);
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return undefined;
      throw err;
    }
  }

  /** As the reference's lock: an Event on the Lease says who leads now. */
  private becameLeader(lease: JsonObject): void {
    this.events.record({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }, 'Normal', 'LeaderElection', `${this.config.identity} became leader`);
  }

  /** Gives the Lease up (holder emptied, a one-second duration), as client-go's ReleaseOnCancel. */
  private async release(): Promise<void> {
    const lease = await this.registry.getObject(this.info, this.config.namespace, this.config.name);
    if (!lease || recordOf(lease).holderIdentity !== this.config.identity) return;
    const now = microTime(Date.now());
    await this.write(lease, { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: recordOf(lease).leaseTransitions });
  }
}
