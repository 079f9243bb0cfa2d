// The Service allocators of one server: cluster IPs from --service-cluster-ip-range, node ports
// from --service-node-port-range. Their state is what the stored Services hold (read back at
// start), and changes only in one synchronous step per write, so concurrent writes never get the
// same address or port. On a store other servers write too, the ranges are also kept as the
// reference's RangeAllocation objects (durable-ranges.ts), written before the Service is.
import { internalError } from '../../errors.js';
import { AllocationClaim } from './claim.js';
import { DurableRanges, RANGES_PREFIX, RangesNotWritten } from './durable-ranges.js';
import { StoredRange } from './stored-range.js';
import { ClusterIpRange, parseServiceClusterIpRanges } from './cluster-ip.js';
import { RangeRepair, REPAIR_INTERVAL_MS } from './range-repair.js';
import type { SlotPool } from './slot-pool.js';
import { initIpFamilyFields } from './ip-families.js';
import { NodePortRange, parsePortRange } from './node-port.js';
import { normalizeClusterIps, patchAllocatedValues, readSpec, serviceSpec } from './service-fields.js';
import { ServiceIpPools } from './service-ips.js';
import { ServiceNodePorts } from './service-node-ports.js';
import { orderServiceSpec } from './spec-order.js';
import { type JsonObject, copyJson } from '../../json.js';
import type { Storage } from '../../storage/types.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

/** Allocations in a row that lose their picks to other servers before the range counts as full. */
const MAX_DURABLE_ATTEMPTS = 8;

/** An allocation waiting for the next batch (see runBatch). */
interface PendingAllocation {
  svc: JsonObject;
  /** The Service before its picks, to make them again from. */
  before: JsonObject;
  allocate: (claim: AllocationClaim) => void;
  resolve: (claim: AllocationClaim) => void;
  reject: (err: unknown) => void;
}

export class ServiceAllocators {
  private durable: DurableRanges | undefined;
  private pending: PendingAllocation[] = [];
  private batchQueued = false;

  constructor(readonly ips: ServiceIpPools, readonly nodePorts: ServiceNodePorts) {}

  /**
   * Keeps the ranges in `storage` from now on, under the reference's keys: ranges/serviceips (the
   * primary family), ranges/secondaryserviceips, ranges/servicenodeports. Call once the stored
   * Services are restored.
   */
  async keepRangesIn(storage: Storage, storedServices?: () => Promise<JsonObject[]>): Promise<void> {
    const ranges = this.ips.ranges.map((r, i) => new StoredRange(
      `${RANGES_PREFIX}${i === 0 ? 'serviceips' : 'secondaryserviceips'}`, r.text, r.slots, 'failed to allocate a serviceIP: range is full',
    ));
    const ports = this.nodePorts.range;
    ranges.push(new StoredRange(`${RANGES_PREFIX}servicenodeports`, ports.text, ports.slots, 'failed to allocate a nodePort: range is full'));
    this.durable = await DurableRanges.open(storage, ranges);
    if (storedServices) {
      this.repair = new RangeRepair(this.durable, async () => this.heldBy(await storedServices()));
      this.repairTimer = setInterval(() => {
        this.repair?.runOnce().catch((err: unknown) => console.error('repairing the service allocators\' ranges:', err instanceof Error ? err.message : err));
      }, REPAIR_INTERVAL_MS).unref();
    }
  }

  /** The repair loop of the kept ranges (started by keepRangesIn when given the stored Services). */
  repair: RangeRepair | undefined;
  private repairTimer: NodeJS.Timeout | undefined;

  stopKeepingRanges(): void {
    clearInterval(this.repairTimer);
    this.durable?.stop();
  }

  /** What `services` hold, in pools of the same ranges as this server's kept ones (in their order). */
  private heldBy(services: JsonObject[]): SlotPool[] {
    const fresh = new ServiceAllocators(
      new ServiceIpPools(this.ips.ranges.map((r) => new ClusterIpRange(r.cidr))),
      new ServiceNodePorts(new NodePortRange(this.nodePorts.range.range)),
    );
    for (const svc of services) fresh.restore(svc);
    return [...fresh.ips.ranges.map((r) => r.slots), fresh.nodePorts.range.slots];
  }

  /** From the flags' text; throws with the reference's message when one is not usable. */
  static fromFlags(clusterIpRange = DEFAULT_SERVICE_CLUSTER_IP_RANGE, nodePortRange = DEFAULT_SERVICE_NODE_PORT_RANGE): ServiceAllocators {
    let ports;
    try {
      ports = parsePortRange(nodePortRange);
    } catch (err) {
      throw new Error(`invalid argument "${nodePortRange}" for "--service-node-port-range" flag: ${(err as Error).message}`);
    }
    return new ServiceAllocators(new ServiceIpPools(parseServiceClusterIpRanges(clusterIpRange)), new ServiceNodePorts(new NodePortRange(ports)));
  }

  /** The `kubernetes` Service's address: the first of the primary range. */
  kubernetesServiceIp(): string {
    return this.ips.ranges[0]!.firstAddress();
  }

  /** Marks what a stored Service holds as taken. */
  restore(svc: JsonObject): void {
    this.ips.restore(svc);
    this.nodePorts.restore(svc);
    this.durable?.flushSoon();
  }

  /**
   * Fills in and takes a new Service's addresses and ports; 422 or 500 as the reference when it
   * cannot. With kept ranges, resolves once they hold what was taken.
   */
  allocateCreate(svc: JsonObject, dryRun: boolean): AllocationClaim | Promise<AllocationClaim> {
    normalizeClusterIps(serviceSpec(svc));
    initIpFamilyFields(svc, undefined, this.ips.families);
    return this.allocate(svc, dryRun, (claim) => {
      this.ips.allocate(svc, claim);
      this.nodePorts.allocate(svc, claim);
    });
  }

  /** The same for an update: what the new version needs is taken, what it gave up released on commit. */
  allocateUpdate(svc: JsonObject, oldSvc: JsonObject, dryRun: boolean): AllocationClaim | Promise<AllocationClaim> {
    const spec = serviceSpec(svc);
    patchAllocatedValues(spec, readSpec(oldSvc));
    normalizeClusterIps(spec, readSpec(oldSvc));
    initIpFamilyFields(svc, oldSvc, this.ips.families);
    return this.allocate(svc, dryRun, (claim) => {
      this.ips.update(svc, oldSvc, claim);
      this.nodePorts.update(svc, oldSvc, claim);
    });
  }

  /** Gives back all a deleted Service held (with kept ranges, written soon). */
  release(svc: JsonObject): void {
    this.ips.release(svc);
    this.nodePorts.release(svc);
    this.durable?.flushSoon();
  }

  /** The same, resolving once the kept ranges no longer hold it. */
  async releaseDurably(svc: JsonObject): Promise<void> {
    this.ips.release(svc);
    this.nodePorts.release(svc);
    await this.durable?.flushNow();
  }

  private allocate(svc: JsonObject, dryRun: boolean, allocate: (claim: AllocationClaim) => void): AllocationClaim | Promise<AllocationClaim> {
    const durable = this.durable;
    if (!durable || dryRun) return this.run(svc, dryRun, allocate);
    return new Promise((resolve, reject) => {
      this.pending.push({ svc, before: copyJson(svc), allocate, resolve, reject });
      if (this.batchQueued) return;
      this.batchQueued = true;
      durable.exclusive(() => this.runBatch(durable)).catch((err: unknown) => console.error('service allocation:', err));
    });
  }

  /**
   * As the reference's etcd allocator, in batches: the allocations waiting are made on what this
   * server knows of the ranges and written together, one compare-and-swap per range for all of
   * them. When another server stored one of the picks first, every pick of the batch is given back
   * and made again (servers racing is the rare case; knowing whose pick was lost is not needed).
   */
  private async runBatch(durable: DurableRanges): Promise<void> {
    this.batchQueued = false;
    let round = this.pending.splice(0);
    for (let attempt = 1; ; attempt++) {
      durable.refresh();
      const made: Array<[PendingAllocation, AllocationClaim]> = [];
      for (const p of round) {
        if (attempt > 1) {
          for (const key of Object.keys(p.svc)) delete p.svc[key];
          Object.assign(p.svc, copyJson(p.before));
        }
        try {
          made.push([p, this.run(p.svc, false, p.allocate)]);
        } catch (err) {
          p.reject(err);
        }
      }
      if (made.length === 0) {
        // Picks of an earlier attempt that were written are given back in the ranges too.
        await durable.flush().catch(() => undefined);
        return;
      }
      let lost;
      try {
        lost = await durable.flush();
      } catch (err) {
        // Whether the write landed is unknown: the ranges are read again before the next one (a
        // pick that did land stays taken until the reference's repair would free it).
        for (const [, claim] of made) claim.revert();
        if (err instanceof RangesNotWritten) DurableRanges.retake(err.lost);
        const reason = err instanceof RangesNotWritten ? err.reason : err;
        for (const [p] of made) p.reject(reason);
        return;
      }
      if (lost.size === 0) {
        for (const [p, claim] of made) {
          claim.afterSettle(() => durable.flushSoon());
          p.resolve(claim);
        }
        return;
      }
      for (const [, claim] of made) claim.revert();
      DurableRanges.retake(lost);
      round = made.map(([p]) => p);
      if (attempt >= MAX_DURABLE_ATTEMPTS) {
        await durable.flush().catch(() => undefined);
        const full = internalError([...lost.keys()][0]!.fullMessage);
        for (const p of round) p.reject(full);
        return;
      }
    }
  }

  private run(svc: JsonObject, dryRun: boolean, allocate: (claim: AllocationClaim) => void): AllocationClaim {
    const claim = new AllocationClaim(dryRun);
    try {
      allocate(claim);
    } catch (err) {
      claim.revert();
      throw err;
    }
    orderServiceSpec(svc);
    return claim;
  }
}
