// Resource names and quantities (container requests and limits, quotas, limit ranges, claims),
// with the reference's rules for which names are standard and which values are allowed.
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired } from '../../errors.js';
import { isQualifiedName } from '../names.js';
import { Quantity } from '../quantity.js';
import { child, entries, invalidAll, key, NON_NEGATIVE } from './helpers.js';

const COMPUTE = ['cpu', 'memory', 'ephemeral-storage'];
const OBJECT_COUNTS = ['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers'];
const STANDARD_RESOURCES = new Set([
  ...COMPUTE, 'storage',
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  ...OBJECT_COUNTS,
]);
const QUOTA_RESOURCES = new Set([
  ...OBJECT_COUNTS, ...COMPUTE,
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'requests.storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
]);

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** Native: unprefixed, or in the kubernetes.io namespace. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const isStandardResource = (name: string): boolean => STANDARD_RESOURCES.has(name) || isHugePages(name) || name.startsWith('requests.hugepages-');
const isStandardContainerResource = (name: string): boolean => COMPUTE.includes(name) || isHugePages(name);
const isStandardQuotaResource = (name: string): boolean => QUOTA_RESOURCES.has(name) || name.startsWith('requests.hugepages-');
/** Integer-valued resources: object counts and extended resources. */
const isIntegerResource = (name: string): boolean => OBJECT_COUNTS.includes(name) || isExtended(name) || (name.startsWith('requests.') && isExtended(name.slice(9)));
/** Requests may differ from limits for native, non-hugepage resources only. */
export const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** validateResourceName: a qualified name; unprefixed names must be standard. */
export function validateResourceName(name: string, field: string): FieldError[] {
  const errs = invalidAll(field, name, isQualifiedName(name));
  if (errs.length) return errs;
  if (!name.includes('/') && !isStandardResource(name)) return [fieldInvalid(field, name, 'must be a standard resource type or fully qualified')];
  return [];
}

export function validateContainerResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes('/')) {
    if (!isStandardContainerResource(name)) errs.push(fieldInvalid(field, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name)) {
    errs.push(fieldInvalid(field, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

export function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const errs = validateResourceName(name, field);
  if (!name.includes('/') && !isStandardQuotaResource(name)) errs.push(fieldInvalid(field, name, 'must be a standard resource for quota'));
  return errs;
}

/** ValidateResourceQuantityValue: not negative; whole for integer resources. */
export function validateQuantityValue(resource: string, q: Quantity, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(fieldInvalid(field, q.toString(), NON_NEGATIVE));
  if (isIntegerResource(resource) && !q.isInteger()) errs.push(fieldInvalid(field, q.toString(), 'must be an integer'));
  return errs;
}

/** The quantities of a resource map (limits, requests, hard, …), skipping values the decoder refuses. */
export function quantities(map: unknown): Array<[string, Quantity]> {
  const out: Array<[string, Quantity]> = [];
  for (const [name, v] of entries(map)) {
    const q = Quantity.from(v);
    if (q) out.push([name, q]);
  }
  return out;
}

/** A container's resources: names, values, requests ≤ limits, limits for non-overcommitable resources. */
export function validateResourceRequirements(resources: Record<string, unknown>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = child(field, 'limits');
  const reqPath = child(field, 'requests');
  const limits = new Map(quantities(resources['limits']));
  let limitsCpuOrMemory = false;
  let requestsCpuOrMemory = false;
  let hugePages = false;
  for (const [name, q] of limits) {
    const path = key(limPath, name);
    errs.push(...validateContainerResourceName(name, path), ...validateQuantityValue(name, q, path));
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') limitsCpuOrMemory = true;
  }
  for (const [name, q] of quantities(resources['requests'])) {
    const path = key(reqPath, name);
    errs.push(...validateContainerResourceName(name, path), ...validateQuantityValue(name, q, path));
    const limit = limits.get(name);
    if (limit) {
      const cmp = q.cmp(limit);
      if (cmp !== 0 && !isOvercommitAllowed(name)) errs.push(fieldInvalid(reqPath, q.toString(), `must be equal to ${name} limit`));
      else if (cmp > 0) errs.push(fieldInvalid(reqPath, q.toString(), `must be less than or equal to ${name} limit`));
    } else if (!isOvercommitAllowed(name)) {
      errs.push(fieldRequired(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') requestsCpuOrMemory = true;
  }
  if (hugePages && !limitsCpuOrMemory && !requestsCpuOrMemory) errs.push(fieldForbidden(field, 'HugePages require cpu or memory'));
  return errs;
}
