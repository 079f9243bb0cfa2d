// The LimitRanger admission plugin: the LimitRanges of a namespace give new pods' containers their
// default requests and limits (noted in the pod's "kubernetes.io/limit-ranger" annotation), and
// refuse pods and claims outside their min, max and limit/request ratio with 403.
import { Quantity } from '../../api/quantity.js';
import { resourceListOf, type ResourceList } from '../../quota/resource-list.js';
import { NamespaceIndex } from '../../registry/namespace-index.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices, Operation } from '../types.js';
import { forbidden } from './support.js';
import { type JsonObject, isObject } from '../../json.js';

const ANNOTATION = 'kubernetes.io/limit-ranger';
/** The largest value whose thousandths still fit an int64 (the reference compares in thousandths below it). */
const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

/** One spec.limits entry, its lists parsed. */
interface LimitItem {
  type: string;
  min: ResourceList;
  max: ResourceList;
  default: ResourceList;
  defaultRequest: ResourceList;
  maxLimitRequestRatio: ResourceList;
}

/**
 * The items of a LimitRange, with the defaults the reference gives Container items when it stores
 * them (default limit ← max, default request ← default limit, then ← min), so that they hold
 * whether or not the stored object was defaulted.
 */
function limitItems(limitRange: JsonObject): LimitItem[] {
  const spec = isObject(limitRange['spec']) ? limitRange['spec'] : {};
  const limits = Array.isArray(spec['limits']) ? spec['limits'].filter(isObject) : [];
  return limits.map((l) => {
    const item: LimitItem = {
      type: String(l['type'] ?? ''),
      min: resourceListOf(l['min']),
      max: resourceListOf(l['max']),
      default: resourceListOf(l['default']),
      defaultRequest: resourceListOf(l['defaultRequest']),
      maxLimitRequestRatio: resourceListOf(l['maxLimitRequestRatio']),
    };
    if (item.type === 'Container') {
      for (const [k, v] of item.max) if (!item.default.has(k)) item.default.set(k, v);
      for (const [k, v] of item.default) if (!item.defaultRequest.has(k)) item.defaultRequest.set(k, v);
      for (const [k, v] of item.min) if (!item.defaultRequest.has(k)) item.defaultRequest.set(k, v);
    }
    return item;
  });
}

function containers(pod: JsonObject, key: 'containers' | 'initContainers'): JsonObject[] {
  const spec = pod['spec'];
  const list = isObject(spec) ? spec[key] : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

function resources(container: JsonObject, kind: 'requests' | 'limits'): ResourceList {
  const r = container['resources'];
  return resourceListOf(isObject(r) ? r[kind] : undefined);
}

// ---- defaults ----

/** Sets the requests and limits a container lacks; returns what it set, for the annotation. */
function defaultContainer(container: JsonObject, requests: ResourceList, limits: ResourceList, prefix: string): string[] {
  const current = isObject(container['resources']) ? container['resources'] : {};
  const fill = (kind: 'requests' | 'limits', defaults: ResourceList): { list: JsonObject | undefined; set: string[] } => {
    const given = isObject(current[kind]) ? current[kind] : undefined;
    const list: JsonObject = { ...given };
    const set: string[] = [];
    for (const [name, value] of defaults) {
      if (list[name] !== undefined) continue;
      list[name] = value.toString();
      set.push(name);
    }
    // Written back with sorted keys, as the reference writes maps.
    const sorted = Object.fromEntries(Object.keys(list).sort().map((k) => [k, list[k]]));
    return { list: set.length ? sorted : given, set: set.sort() };
  };
  const limitsSet = fill('limits', limits);
  const requestsSet = fill('requests', requests);
  if (limitsSet.set.length || requestsSet.set.length) {
    // limits before requests, as the reference writes ResourceRequirements
    const rest: JsonObject = { ...current };
    delete rest['limits'];
    delete rest['requests'];
    container['resources'] = { ...(limitsSet.list ? { limits: limitsSet.list } : {}), ...(requestsSet.list ? { requests: requestsSet.list } : {}), ...rest };
  }
  const name = String(container['name'] ?? '');
  const notes: string[] = [];
  if (requestsSet.set.length) notes.push(`${requestsSet.set.join(', ')} request for ${prefix} ${name}`);
  if (limitsSet.set.length) notes.push(`${limitsSet.set.join(', ')} limit for ${prefix} ${name}`);
  return notes;
}

function applyDefaults(pod: JsonObject, items: LimitItem[]): void {
  const requests: ResourceList = new Map();
  const limits: ResourceList = new Map();
  for (const item of items) {
    if (item.type !== 'Container') continue;
    for (const [k, v] of item.defaultRequest) requests.set(k, v);
    for (const [k, v] of item.default) limits.set(k, v);
  }
  const notes: string[] = [];
  for (const c of containers(pod, 'containers')) notes.push(...defaultContainer(c, requests, limits, 'container'));
  for (const c of containers(pod, 'initContainers')) notes.push(...defaultContainer(c, requests, limits, 'init container'));
  if (notes.length === 0) return;
  const meta = metadataOf(pod);
  meta['annotations'] = { ...(isObject(meta['annotations']) ? meta['annotations'] : {}), [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
}

// ---- constraints ----

/** Request, limit and enforced value at a common precision: thousandths when all fit, else units. */
function comparable(request: Quantity | undefined, limit: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const zero = Quantity.zero();
  const r = request ?? zero;
  const l = limit ?? zero;
  if (r.value() <= MAX_MILLI_VALUE && l.value() <= MAX_MILLI_VALUE && enforced.value() <= MAX_MILLI_VALUE) {
    return [r.milliValue(), l.milliValue(), enforced.milliValue()];
  }
  return [r.value(), l.value(), enforced.value()];
}

function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const request = requests.get(name);
  const limit = limits.get(name);
  const [req, lim, min] = comparable(request, limit, enforced);
  if (!request) return `minimum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (req < min) return `minimum ${name} usage per ${type} is ${enforced}, but request is ${request}`;
  if (limit && lim < min) return `minimum ${name} usage per ${type} is ${enforced}, but limit is ${limit}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const request = requests.get(name);
  const limit = limits.get(name);
  const [req, lim, max] = comparable(request, limit, enforced);
  if (!limit) return `maximum ${name} usage per ${type} is ${enforced}.  No limit is specified`;
  if (lim > max) return `maximum ${name} usage per ${type} is ${enforced}, but limit is ${limit}`;
  if (request && req > max) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${request}`;
  return undefined;
}

/** Claims have only requests: the max applies to them. */
function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const request = requests.get(name);
  const [req, , max] = comparable(request, undefined, enforced);
  if (!request) return `maximum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (req > max) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${request}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const [req, lim] = comparable(requests.get(name), limits.get(name), enforced);
  if (!requests.has(name) || req === 0n) return `${name} max limit to request ratio per ${type} is ${enforced}, but no request is specified or request is 0`;
  if (!limits.has(name) || lim === 0n) return `${name} max limit to request ratio per ${type} is ${enforced}, but no limit is specified or limit is 0`;
  // Floating point, as the reference computes and prints it (%f).
  const ratio = Number(lim) / Number(req);
  let observed = ratio;
  let allowed = Number(enforced.value());
  if (enforced.value() <= MAX_MILLI_VALUE) {
    observed = ratio * 1000;
    allowed = Number(enforced.milliValue());
  }
  if (observed > allowed) return `${name} max limit to request ratio per ${type} is ${enforced}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

function checkAll(item: LimitItem, requests: ResourceList, limits: ResourceList, errors: string[]): void {
  const add = (e: string | undefined) => e !== undefined && errors.push(e);
  for (const [k, v] of item.min) add(minConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of item.max) add(maxConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of item.maxLimitRequestRatio) add(ratioConstraint(item.type, k, v, requests, limits));
}

/**
 * A pod's total of a resource: set only when every container sets it; cpu summed in thousandths,
 * the rest in units (rounded up); then the largest init container where it is larger.
 */
function podTotals(pod: JsonObject, kind: 'requests' | 'limits'): ResourceList {
  const lists = containers(pod, 'containers').map((c) => resources(c, kind));
  const total: ResourceList = new Map();
  for (const name of new Set(lists.flatMap((l) => [...l.keys()]))) {
    if (!lists.every((l) => l.has(name))) continue;
    const sum = lists.reduce((acc, l) => acc + (name === 'cpu' ? l.get(name)!.milliValue() : l.get(name)!.value()), 0n);
    total.set(name, name === 'cpu' ? Quantity.ofMilli(sum) : Quantity.of(sum));
  }
  for (const c of containers(pod, 'initContainers')) {
    for (const [name, v] of resources(c, kind)) {
      const current = total.get(name);
      if (!current || v.cmp(current) > 0) total.set(name, v);
    }
  }
  return total;
}

function podErrors(pod: JsonObject, items: LimitItem[]): string[] {
  const errors: string[] = [];
  for (const item of items) {
    if (item.type === 'Container') {
      for (const c of [...containers(pod, 'containers'), ...containers(pod, 'initContainers')]) {
        checkAll(item, resources(c, 'requests'), resources(c, 'limits'), errors);
      }
    } else if (item.type === 'Pod') {
      checkAll(item, podTotals(pod, 'requests'), podTotals(pod, 'limits'), errors);
    }
  }
  return errors;
}

function claimErrors(pvc: JsonObject, items: LimitItem[]): string[] {
  const spec = isObject(pvc['spec']) ? pvc['spec'] : {};
  const requests = resourceListOf(isObject(spec['resources']) ? spec['resources']['requests'] : undefined);
  const errors: string[] = [];
  for (const item of items) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of item.min) {
      const e = minConstraint(item.type, k, v, requests, new Map());
      if (e) errors.push(e);
    }
    for (const [k, v] of item.max) {
      const e = maxRequestConstraint(item.type, k, v, requests);
      if (e) errors.push(e);
    }
  }
  return errors;
}

/** Several errors as the reference aggregates them: duplicates dropped, "[a, b]" when more than one. */
function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export class LimitRangerAdmission implements AdmissionPlugin {
  readonly name = 'LimitRanger';
  readonly operations: readonly Operation[] = ['CREATE', 'UPDATE'];
  private ranges: NamespaceIndex | undefined;
  private starting: Promise<NamespaceIndex> | undefined;

  async mutate(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> {
    if (!this.applies(attributes) || attributes.info.resource !== 'pods') return;
    for (const range of await this.rangesOf(attributes, services.registry)) applyDefaults(attributes.object!, limitItems(range));
  }

  async validate(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> {
    if (!this.applies(attributes)) return;
    const isPod = attributes.info.resource === 'pods';
    for (const range of await this.rangesOf(attributes, services.registry)) {
      const items = limitItems(range);
      const errors = isPod ? podErrors(attributes.object!, items) : claimErrors(attributes.object!, items);
      if (errors.length) throw forbidden(attributes, aggregate(errors));
    }
  }

  /** Creates of pods, creates and updates of claims; not subresources, not objects being deleted. */
  private applies(a: AdmissionAttributes): boolean {
    if (a.subresource || a.namespace === undefined || !a.object || a.info.group !== '') return false;
    if (a.operation === 'CREATE') return a.info.resource === 'pods' || a.info.resource === 'persistentvolumeclaims';
    if (a.operation !== 'UPDATE' || a.info.resource !== 'persistentvolumeclaims') return false;
    const oldMeta = a.oldObject?.['metadata'];
    return !(isObject(oldMeta) && oldMeta['deletionTimestamp']);
  }

  private async rangesOf(a: AdmissionAttributes, registry: Registry): Promise<readonly JsonObject[]> {
    this.starting ??= NamespaceIndex.start(registry, registry.definitions.lookup('', 'v1', 'limitranges')!).then((index) => (this.ranges = index));
    const index = this.ranges ?? await this.starting;
    return index.in(a.namespace!);
  }
}
