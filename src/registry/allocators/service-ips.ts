// A Service's cluster IPs: allocated per family when it is created or changes type from
// ExternalName, the secondary one added or dropped when it moves between single- and dual-stack,
// all released when it is deleted or becomes an ExternalName.
import { internalError, invalid } from '../../errors.js';
import type { AllocationClaim } from './claim.js';
import { ClusterIpRange, IpAllocatedError, IpNotInRangeError, RangeFullError } from './cluster-ip.js';
import { goStringSlice, invalidRendered } from './go-values.js';
import { keepsPreferDualStack } from './ip-families.js';
import { familyOfIp, type IpFamily } from './ip-range.js';
import {
  clusterIpOf, clusterIpsOf, familiesOf, isHeadless, readSpec, serviceName, serviceSpec, typeOf,
} from './service-fields.js';
import { type JsonObject } from '../../json.js';

export class ServiceIpPools {
  constructor(readonly ranges: ClusterIpRange[]) {}

  /** The families the cluster serves, primary first. */
  get families(): IpFamily[] {
    return this.ranges.map((r) => r.family);
  }

  rangeOf(family: string): ClusterIpRange | undefined {
    return this.ranges.find((r) => r.family === family);
  }

  /** Takes `wanted` ("" for any free address) from the family's range for `svc`. */
  private take(svc: JsonObject, family: string, wanted: string, shownIps: string[], claim: AllocationClaim): string {
    const range = this.rangeOf(family);
    // Families were checked against the cluster's before this point.
    if (!range) throw internalError(`no service IP range for family ${family}`);
    let ip: string;
    try {
      if (wanted === '') {
        ip = range.allocateNext(claim.dryRun);
      } else {
        range.allocate(wanted, claim.dryRun);
        ip = wanted;
      }
    } catch (err) {
      if (err instanceof RangeFullError) throw internalError(`failed to allocate a serviceIP: ${err.message}`);
      if (err instanceof IpNotInRangeError || err instanceof IpAllocatedError) {
        throw invalid('Service', '', serviceName(svc), [invalidRendered('spec.clusterIPs', goStringSlice(shownIps), `failed to allocate IP ${wanted}: ${err.message}`)]);
      }
      throw err;
    }
    claim.taken(() => range.release(ip));
    return ip;
  }

  /** Addresses for every family of a new (or no longer ExternalName) Service, those asked for or any. */
  allocate(svc: JsonObject, claim: AllocationClaim): void {
    const spec = serviceSpec(svc);
    if (typeOf(spec) === 'ExternalName' || isHeadless(spec)) return;
    const families = familiesOf(spec);
    // "" marks a family whose address is to be picked (and shows so in errors, as the reference's).
    const ips = clusterIpsOf(spec);
    while (ips.length < families.length) ips.push('');
    families.forEach((family, i) => {
      ips[i] = this.take(svc, family, ips[i]!, ips, claim);
    });
    if (ips.length === 0) return;
    spec.clusterIPs = ips;
    spec.clusterIP = ips[0]!;
  }

  /** What an update changes: type to or from ExternalName, single- to dual-stack and back. */
  update(svc: JsonObject, oldSvc: JsonObject, claim: AllocationClaim): void {
    const spec = serviceSpec(svc);
    const old = readSpec(oldSvc);
    if (keepsPreferDualStack(spec, old)) return;
    if (typeOf(old) === 'ExternalName' && typeOf(spec) !== 'ExternalName') {
      this.allocate(svc, claim);
      return;
    }
    if (isHeadless(old)) return;
    if (typeOf(spec) === 'ExternalName') {
      if (typeOf(old) !== 'ExternalName') claim.releaseOnCommit(() => this.release(oldSvc));
      return;
    }
    const oldFamilies = familiesOf(old);
    const families = familiesOf(spec);
    if (oldFamilies.length === 1 && families.length === 2) {
      const ips = clusterIpsOf(spec);
      if (ips.length < 2) ips.push('');
      ips[1] = this.take(svc, families[1]!, ips[1]!, ips, claim);
      spec.clusterIPs = ips;
    } else if (oldFamilies.length === 2 && families.length === 1) {
      const secondary = clusterIpsOf(old)[1];
      const range = this.rangeOf(oldFamilies[1]!);
      if (secondary !== undefined && range) claim.releaseOnCommit(() => range.release(secondary));
    }
  }

  /** The addresses a stored Service holds (clusterIP alone for objects older than clusterIPs). */
  private held(svc: JsonObject): string[] {
    const spec = readSpec(svc);
    if (typeOf(spec) === 'ExternalName' || isHeadless(spec)) return [];
    const ips = clusterIpsOf(spec);
    if (ips.length > 0) return ips;
    const ip = clusterIpOf(spec);
    return ip === '' || ip === 'None' ? [] : [ip];
  }

  release(svc: JsonObject): void {
    for (const ip of this.held(svc)) this.rangeOf(familyOfIp(ip) ?? '')?.release(ip);
  }

  /** Marks what a stored Service holds as taken (at start; conflicts are left as they are). */
  restore(svc: JsonObject): void {
    for (const ip of this.held(svc)) {
      try {
        this.rangeOf(familyOfIp(ip) ?? '')?.allocate(ip);
      } catch {
        // Out of the current range (the flag changed) or held twice: nothing to take.
      }
    }
  }
}
