// ipFamilyPolicy and ipFamilies of a Service, filled in and checked against the cluster's service
// ranges before any address is allocated (the reference's allocator does this, not its defaulting,
// because it depends on the server's flags).
import { fieldNotSupported, fieldRequired, invalid, type FieldError } from '../../errors.js';
import { duplicateValue, goStringSlice, invalidRendered } from './go-values.js';
import { familyOfIp, type IpFamily } from './ip-range.js';
import {
  CLUSTER_IP_NONE, clusterIpOf, clusterIpsOf, familiesOf, hasSelector, isHeadless, policyOf, readSpec, sameClusterIps,
  sameFamilies, serviceName, serviceSpec, typeOf, type ServiceSpecFields,
} from './service-fields.js';
import { type JsonObject } from '../../json.js';

const SINGLE = 'SingleStack';
const PREFER_DUAL = 'PreferDualStack';
const REQUIRE_DUAL = 'RequireDualStack';
const POLICIES = [PREFER_DUAL, REQUIRE_DUAL, SINGLE];
const FAMILIES = ['IPv4', 'IPv6'];

const otherFamily = (family: string): IpFamily => (family === 'IPv4' ? 'IPv6' : 'IPv4');

function renderPolicy(spec: ServiceSpecFields): string {
  const policy = policyOf(spec);
  return policy === undefined ? 'null' : JSON.stringify(policy);
}

/**
 * The loose checks of clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy that the reference's
 * allocator runs first (they are also part of Service validation), so that allocation only ever
 * sees well-formed fields.
 */
export function clusterIpFieldErrors(spec: ServiceSpecFields): FieldError[] {
  if (typeOf(spec) === 'ExternalName') return [];
  const errors: FieldError[] = [];
  const ip = clusterIpOf(spec);
  const ips = clusterIpsOf(spec);
  if (ip !== '') {
    if (ips.length === 0) errors.push(fieldRequired('spec.clusterIPs'));
    else if (ips[0] !== ip) errors.push(invalidRendered('spec.clusterIPs', goStringSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errors.push(invalidRendered('spec.clusterIPs', goStringSlice(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  familiesOf(spec).forEach((family, i) => {
    if (!FAMILIES.includes(family)) errors.push(fieldNotSupported(`spec.ipFamilies[${i}]`, family, FAMILIES));
    if (seen.has(family)) errors.push(duplicateValue(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });
  const policy = policyOf(spec);
  if (policy !== undefined && !POLICIES.includes(policy)) errors.push(fieldNotSupported('spec.ipFamilyPolicy', policy, POLICIES));
  let badIps = false;
  ips.forEach((value, i) => {
    if (i === 0 && value === CLUSTER_IP_NONE) {
      if (ips.length > 1) {
        badIps = true;
        errors.push(invalidRendered('spec.clusterIPs', goStringSlice(ips), "'None' must be the first and only value"));
      }
      return;
    }
    if (familyOfIp(value) === undefined) {
      badIps = true;
      errors.push(invalidRendered(`spec.clusterIPs[${i}]`, JSON.stringify(value), 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    }
  });
  if (ips.length > 2) errors.push(invalidRendered('spec.clusterIPs', goStringSlice(ips), 'may only hold up to 2 values'));
  // Bad addresses would skew the checks below.
  if (badIps) return errors;
  if (ips.length > 1 && familyOfIp(ips[0]!) === familyOfIp(ips[1]!)) {
    errors.push(invalidRendered('spec.clusterIPs', goStringSlice(ips), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    const families = familiesOf(spec);
    ips.forEach((value, i) => {
      if (i >= families.length) return;
      const family = familyOfIp(value);
      if (families[i] === 'IPv4' && family === 'IPv6') errors.push(invalidRendered(`spec.clusterIPs[${i}]`, JSON.stringify(value), `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && family !== 'IPv6') errors.push(invalidRendered(`spec.clusterIPs[${i}]`, JSON.stringify(value), `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errors;
}

/** Whether an update keeps a PreferDualStack Service's addresses and families as they are. */
export function keepsPreferDualStack(spec: ServiceSpecFields, old: ServiceSpecFields | undefined): boolean {
  if (!old || policyOf(spec) === undefined) return false;
  if (typeOf(old) !== typeOf(spec) || typeOf(spec) === 'ExternalName') return false;
  if (policyOf(spec) !== PREFER_DUAL || (policyOf(old) !== undefined && policyOf(old) !== PREFER_DUAL)) return false;
  return sameClusterIps(old, spec) && sameFamilies(old, spec);
}

function reduced(next: string[], before: string[]): boolean {
  return next.length > 0 && next.length < before.length;
}

/**
 * Fills in ipFamilyPolicy and ipFamilies from what the Service asks for and what the cluster
 * serves (`clusterFamilies`, primary first); 422 when they do not fit.
 */
export function initIpFamilyFields(svc: JsonObject, oldSvc: JsonObject | undefined, clusterFamilies: IpFamily[]): void {
  const spec = serviceSpec(svc);
  const old = oldSvc ? readSpec(oldSvc) : undefined;
  if (typeOf(spec) === 'ExternalName') return;
  // A PreferDualStack Service is neither upgraded nor downgraded by a change of the cluster.
  if (keepsPreferDualStack(spec, old)) return;
  const fail = (errors: FieldError[]) => invalid('Service', '', serviceName(svc), errors);

  if (policyOf(spec) === undefined) {
    const oldPolicy = old ? policyOf(old) : undefined;
    if (oldPolicy !== undefined) spec.ipFamilyPolicy = oldPolicy;
    else if (clusterIpOf(spec) === CLUSTER_IP_NONE && !hasSelector(spec)) spec.ipFamilyPolicy = REQUIRE_DUAL;
    else spec.ipFamilyPolicy = SINGLE;
  }
  const loose = clusterIpFieldErrors(spec);
  if (loose.length) throw fail(loose);

  const errors: FieldError[] = [];
  if (old) {
    if (policyOf(spec) === SINGLE) {
      // Asking for single-stack with the addresses and families unchanged drops the secondary.
      if (sameClusterIps(old, spec) && clusterIpsOf(spec).length > 1) spec.clusterIPs = clusterIpsOf(spec).slice(0, 1);
      if (sameFamilies(old, spec) && familiesOf(spec).length > 1) spec.ipFamilies = familiesOf(spec).slice(0, 1);
    } else {
      if (reduced(clusterIpsOf(spec), clusterIpsOf(old))) errors.push(invalidRendered('spec.ipFamilyPolicy', renderPolicy(spec), "must be 'SingleStack' to release the secondary cluster IP"));
      if (reduced(familiesOf(spec), familiesOf(old))) errors.push(invalidRendered('spec.ipFamilyPolicy', renderPolicy(spec), "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (policyOf(spec) === SINGLE) {
    if (clusterIpsOf(spec).length === 2) errors.push(invalidRendered('spec.ipFamilyPolicy', renderPolicy(spec), "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (familiesOf(spec).length === 2) errors.push(invalidRendered('spec.ipFamilyPolicy', renderPolicy(spec), "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  // Families follow from the addresses asked for.
  const ips = clusterIpsOf(spec);
  const families = familiesOf(spec);
  for (let i = 0; i < ips.length; i++) {
    if (ips[i] === CLUSTER_IP_NONE) break;
    const family = familyOfIp(ips[i]!)!;
    if (i < families.length) continue;
    if (!clusterFamilies.includes(family)) errors.push(invalidRendered(`spec.clusterIPs[${i}]`, goStringSlice(ips), `${family} is not configured on this cluster`));
    else families.push(family);
  }
  if (families.length) spec.ipFamilies = families;
  if (errors.length) throw fail(errors);

  // Headless without a selector may hold both families, whatever the cluster serves.
  if (clusterIpOf(spec) === CLUSTER_IP_NONE && !hasSelector(spec)) {
    if (families.length === 0) families.push(clusterFamilies[0]!);
    if (families.length < 2 && policyOf(spec) !== SINGLE) families.push(otherFamily(families[0]!));
    spec.ipFamilies = families;
    return;
  }
  if (policyOf(spec) === REQUIRE_DUAL && clusterFamilies.length < 2) {
    errors.push(invalidRendered('spec.ipFamilyPolicy', renderPolicy(spec), 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((family, i) => {
    if (!clusterFamilies.includes(family as IpFamily)) errors.push(invalidRendered(`spec.ipFamilies[${i}]`, JSON.stringify(family), 'not configured on this cluster'));
  });
  if (errors.length) throw fail(errors);
  if (families.length === 0) families.push(clusterFamilies[0]!);
  if (policyOf(spec) !== SINGLE && families.length === 1 && clusterFamilies.length === 2) families.push(otherFamily(families[0]!));
  spec.ipFamilies = families;
}
