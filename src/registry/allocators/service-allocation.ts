// The Service allocators of one server: cluster IPs from --service-cluster-ip-range, node ports
// from --service-node-port-range. Their state is what the stored Services hold (read back at
// start), and changes only in one synchronous step per write, so concurrent writes never get the
// same address or port.
import { AllocationClaim } from './claim.js';
import { parseServiceClusterIpRanges } from './cluster-ip.js';
import { initIpFamilyFields } from './ip-families.js';
import { NodePortRange, parsePortRange } from './node-port.js';
import { normalizeClusterIps, patchAllocatedValues, readSpec, serviceSpec } from './service-fields.js';
import { ServiceIpPools } from './service-ips.js';
import { ServiceNodePorts } from './service-node-ports.js';
import { orderServiceSpec } from './spec-order.js';
import { type JsonObject } from '../../json.js';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';

export class ServiceAllocators {
  constructor(readonly ips: ServiceIpPools, readonly nodePorts: ServiceNodePorts) {}

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
  }

  /** Fills in and takes a new Service's addresses and ports; 422 or 500 as the reference when it cannot. */
  allocateCreate(svc: JsonObject, dryRun: boolean): AllocationClaim {
    normalizeClusterIps(serviceSpec(svc));
    initIpFamilyFields(svc, undefined, this.ips.families);
    return this.run(svc, dryRun, (claim) => {
      this.ips.allocate(svc, claim);
      this.nodePorts.allocate(svc, claim);
    });
  }

  /** The same for an update: what the new version needs is taken, what it gave up released on commit. */
  allocateUpdate(svc: JsonObject, oldSvc: JsonObject, dryRun: boolean): AllocationClaim {
    const spec = serviceSpec(svc);
    patchAllocatedValues(spec, readSpec(oldSvc));
    normalizeClusterIps(spec, readSpec(oldSvc));
    initIpFamilyFields(svc, oldSvc, this.ips.families);
    return this.run(svc, dryRun, (claim) => {
      this.ips.update(svc, oldSvc, claim);
      this.nodePorts.update(svc, oldSvc, claim);
    });
  }

  /** Gives back all a deleted Service held. */
  release(svc: JsonObject): void {
    this.ips.release(svc);
    this.nodePorts.release(svc);
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
