// The other core/v1 kinds: Namespace, Node, Endpoints, Event, LimitRange, ResourceQuota,
// ReplicationController and PodTemplate.
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isQualifiedName, isValidLabelValue, validateLabels } from '../names.js';
import { Quantity } from '../quantity.js';
import { validatePodTemplateSpec } from './core-pod.js';
import { quantities, validateContainerResourceName, validateQuantityValue, validateQuotaResourceName, validateResourceName } from './core-resources.js';
import { goQuantity, goStringMap, goStringSlice } from './go-syntax.js';
import { child, dnsLabel, dnsSubdomain, enumField, index, invalidAll, invalidRendered, IP_MESSAGE, isValidCIDR, isValidIP, isValidPortNum, key, nonNegative, num, obj, objs, type Obj, present, qualifiedName, str, strings } from './helpers.js';
import { isObject } from '../../json.js';

/** The finalizer names the reference knows without a prefix. */
export const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** spec.finalizers: qualified names, unprefixed ones standard (errors on the list's path). */
export function validateNamespace(ns: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of strings(obj(ns['spec'])['finalizers'])) {
    errs.push(...qualifiedName(f, 'spec.finalizers'));
    if (!f.includes('/') && !STANDARD_FINALIZERS.includes(f)) errs.push(fieldInvalid('spec.finalizers', f, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function validateNode(node: Obj): FieldError[] {
  const spec = obj(node['spec']);
  const errs: FieldError[] = [];
  // The reference reports taints under metadata (its path, kept as served).
  const seen = new Map<string, Set<string>>();
  objs(spec['taints']).forEach((taint, i) => {
    const path = index('metadata.taints', i);
    const k = str(taint['key']);
    const effect = str(taint['effect']);
    errs.push(...qualifiedName(k, child(path, 'key')));
    const valueErrs = isValidLabelValue(str(taint['value']));
    if (valueErrs.length) errs.push(fieldInvalid(child(path, 'value'), str(taint['value']), valueErrs.join(';')));
    errs.push(...enumField(effect, child(path, 'effect'), TAINT_EFFECTS));
    if (seen.get(effect)?.has(k)) {
      errs.push({ type: 'FieldValueDuplicate', field: path, detail: 'Duplicate value: taints must be unique by key and effect pair' });
      return;
    }
    if (!seen.has(effect)) seen.set(effect, new Set());
    seen.get(effect)!.add(k);
  });
  const cidrs = strings(spec['podCIDRs']);
  cidrs.forEach((cidr, i) => {
    if (!isValidCIDR(cidr)) errs.push(invalidRendered(index('spec.podCIDRs', i), goStringSlice(cidrs), 'must be valid CIDR'));
  });
  return errs;
}

export function validateNodeUpdate(node: Obj, old: Obj): FieldError[] {
  const errs = validateNode(node);
  const spec = obj(node['spec']);
  const oldSpec = obj(old['spec']);
  const oldCIDRs = strings(oldSpec['podCIDRs']);
  const cidrs = strings(spec['podCIDRs']);
  if (oldCIDRs.length > 0 && (oldCIDRs.length !== cidrs.length || oldCIDRs.some((c, i) => c !== cidrs[i]))) {
    errs.push(fieldForbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  if (str(oldSpec['providerID']) !== '' && oldSpec['providerID'] !== spec['providerID']) {
    errs.push(fieldForbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}

/** Endpoint IPs: valid, and not unspecified, loopback or link-local. */
function nonSpecialIP(ip: string, field: string): FieldError[] {
  if (!isValidIP(ip)) return [fieldInvalid(field, ip, 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  const lower = ip.toLowerCase();
  if (ip === '0.0.0.0' || lower === '::') errs.push(fieldInvalid(field, ip, 'may not be unspecified (0.0.0.0)'));
  if ((v4 && v4[1] === '127') || lower === '::1') errs.push(fieldInvalid(field, ip, 'may not be in the loopback range (127.0.0.0/8)'));
  if ((v4 && v4[1] === '169' && v4[2] === '254') || /^fe[89ab]/.test(lower)) errs.push(fieldInvalid(field, ip, 'may not be in the link-local range (169.254.0.0/16)'));
  if ((v4 && v4[1] === '224' && v4[2] === '0' && v4[3] === '0') || lower.startsWith('ff02:')) errs.push(fieldInvalid(field, ip, 'may not be in the link-local multicast range (224.0.0.0/24)'));
  return errs;
}

function validateEndpointAddress(address: Obj, field: string): FieldError[] {
  const ip = str(address['ip']);
  const errs = isValidIP(ip) ? [] : [fieldInvalid(child(field, 'ip'), ip, IP_MESSAGE)];
  if (str(address['hostname']) !== '') errs.push(...dnsLabel(str(address['hostname']), child(field, 'hostname')));
  if (present(address['nodeName'])) errs.push(...dnsSubdomain(str(address['nodeName']), child(field, 'nodeName')));
  errs.push(...nonSpecialIP(ip, child(field, 'ip')));
  return errs;
}

export function validateEndpoints(endpoints: Obj): FieldError[] {
  const errs: FieldError[] = [];
  objs(endpoints['subsets']).forEach((subset, i) => {
    const path = index('subsets', i);
    const addresses = objs(subset['addresses']);
    const notReady = objs(subset['notReadyAddresses']);
    if (addresses.length === 0 && notReady.length === 0) errs.push(fieldRequired(path, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateEndpointAddress(a, index(child(path, 'addresses'), j))));
    notReady.forEach((a, j) => errs.push(...validateEndpointAddress(a, index(child(path, 'notReadyAddresses'), j))));
    const ports = objs(subset['ports']);
    ports.forEach((p, j) => {
      const portPath = index(child(path, 'ports'), j);
      const name = str(p['name']);
      if (ports.length > 1 && name === '') errs.push(fieldRequired(child(portPath, 'name')));
      else if (name !== '') errs.push(...dnsLabel(name, child(portPath, 'name')));
      const port = num(p['port']) ?? 0;
      errs.push(...invalidAll(child(portPath, 'port'), port, isValidPortNum(port)));
      errs.push(...enumField(p['protocol'], child(portPath, 'protocol'), ['SCTP', 'TCP', 'UDP'], { defaulted: true }));
    });
  });
  return errs;
}

/**
 * An Event in core/v1's shape, by the rules every Event keeps whichever API writes it (the
 * reference's legacy validation): an old-style event (no eventTime) lives in its involved object's
 * namespace; a new-style one names its reporter. `controllerField` is the reporter's field as the
 * request's API names it (events.k8s.io calls it reportingController).
 */
export function validateCoreEvent(event: Obj, controllerField = 'reportingComponent'): FieldError[] {
  const namespace = str(obj(event['metadata'])['namespace']);
  const involved = str(obj(event['involvedObject'])['namespace']);
  const errs: FieldError[] = [];
  if (!present(event['eventTime'])) {
    if (involved === '' ? namespace !== '' && namespace !== 'default' : namespace !== involved) {
      errs.push(fieldInvalid('involvedObject.namespace', involved, 'does not match event.namespace'));
    }
  } else {
    if (involved === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(fieldInvalid('involvedObject.namespace', involved, 'does not match event.namespace'));
    errs.push(...newStyleEventFields(event, controllerField));
  }
  return errs;
}

/** The fields a new-style event (one with an eventTime) must carry, read from core/v1's shape. */
function newStyleEventFields(event: Obj, controllerField: string): FieldError[] {
  const errs: FieldError[] = [];
  const controller = str(event['reportingComponent']);
  if (controller === '') errs.push(fieldRequired(controllerField));
  errs.push(...invalidAll(controllerField, controller, isQualifiedName(controller)));
  const limits: Array<[string, string, number]> = [['reportingInstance', 'reportingInstance', 128], ['action', 'action', 128], ['reason', 'reason', 128]];
  for (const [json, path, max] of limits) {
    const value = str(event[json]);
    if (value === '') errs.push(fieldRequired(path));
    if (value.length > max) errs.push(fieldInvalid(path, '', `can have at most ${max} characters`));
  }
  if (str(event['message']).length > 1024) errs.push(fieldInvalid('message', '', 'can have at most 1024 characters'));
  return errs;
}

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

export function validateLimitRange(lr: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  objs(obj(lr['spec'])['limits']).forEach((limit, i) => {
    const path = index('spec.limits', i);
    const type = str(limit['type']);
    const typeErrs = invalidAll(child(path, 'type'), type, isQualifiedName(type));
    if (typeErrs.length === 0 && !type.includes('/') && !LIMIT_TYPES.includes(type)) typeErrs.push(fieldInvalid(child(path, 'type'), type, 'must be a standard limit type or fully qualified'));
    errs.push(...typeErrs);
    if (types.has(type)) errs.push(fieldDuplicate(child(path, 'type'), type));
    types.add(type);
    const nameCheck = (name: string, field: string) => (type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, field) : validateResourceName(name, field));
    const read = (k: string): Map<string, Quantity> => {
      const m = new Map(quantities(limit[k]));
      for (const name of m.keys()) errs.push(...nameCheck(name, key(child(path, k), name)));
      return m;
    };
    const max = read('max');
    const min = read('min');
    let defaults = new Map<string, Quantity>();
    let defaultRequests = new Map<string, Quantity>();
    if (type === 'Pod') {
      if (Object.keys(obj(limit['default'])).length) errs.push(fieldForbidden(child(path, 'default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(obj(limit['defaultRequest'])).length) errs.push(fieldForbidden(child(path, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
    } else {
      defaults = read('default');
      defaultRequests = read('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
      errs.push(fieldRequired(child(path, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    const ratios = read('maxLimitRequestRatio');
    const names = new Set([...max.keys(), ...min.keys(), ...defaults.keys(), ...defaultRequests.keys(), ...ratios.keys()]);
    // Messages print quantities with String(); the bad value is the Quantity struct itself (%#v).
    const bad = (field: string, q: Quantity, why: string) => errs.push(invalidRendered(field, goQuantity(q), why));
    const one = Quantity.of(1);
    for (const name of names) {
      const [lo, hi, def, req, ratio] = [min.get(name), max.get(name), defaults.get(name), defaultRequests.get(name), ratios.get(name)];
      if (lo && hi && lo.cmp(hi) > 0) bad(key(child(path, 'min'), name), lo, `min value ${lo} is greater than max value ${hi}`);
      if (req && lo && lo.cmp(req) > 0) bad(key(child(path, 'defaultRequest'), name), req, `min value ${lo} is greater than default request value ${req}`);
      if (req && hi && req.cmp(hi) > 0) bad(key(child(path, 'defaultRequest'), name), req, `default request value ${req} is greater than max value ${hi}`);
      if (req && def && req.cmp(def) > 0) bad(key(child(path, 'defaultRequest'), name), req, `default request value ${req} is greater than default limit value ${def}`);
      if (def && lo && lo.cmp(def) > 0) bad(key(child(path, 'default'), name), lo, `min value ${lo} is greater than default value ${def}`);
      if (def && hi && def.cmp(hi) > 0) bad(key(child(path, 'default'), name), hi, `default value ${def} is greater than max value ${hi}`);
      if (ratio && ratio.cmp(one) < 0) bad(key(child(path, 'maxLimitRequestRatio'), name), ratio, `ratio ${ratio} is less than 1`);
    }
  });
  return errs;
}

const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];

export function validateResourceQuota(quota: Obj): FieldError[] {
  const spec = obj(quota['spec']);
  const errs: FieldError[] = [];
  for (const [name, q] of quantities(spec['hard'])) {
    const path = key('spec.hard', name);
    errs.push(...validateQuotaResourceName(name, path), ...validateQuantityValue(name, q, path));
  }
  const scopes = strings(spec['scopes']);
  const rendered = goStringSlice(scopes, '[]core.ResourceQuotaScope');
  for (const scope of scopes) if (!QUOTA_SCOPES.includes(scope)) errs.push(invalidRendered('spec.scopes', rendered, 'unsupported scope'));
  for (const [a, b] of [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']]) {
    if (scopes.includes(a!) && scopes.includes(b!)) errs.push(invalidRendered('spec.scopes', rendered, 'conflicting scopes'));
  }
  for (const part of ['hard', 'used']) {
    for (const [name, q] of quantities(obj(quota['status'])[part])) {
      const path = key(child('status', part), name);
      errs.push(...validateQuotaResourceName(name, path), ...validateQuantityValue(name, q, path));
    }
  }
  return errs;
}

/** ReplicationController: a non-empty selector matching its template, restartPolicy Always. */
export function validateReplicationController(rc: Obj): FieldError[] {
  const spec = obj(rc['spec']);
  const template = obj(spec['template']);
  const labels = obj(obj(template['metadata'])['labels']);
  // An absent selector is defaulted to the template's labels.
  const selector = isObject(spec['selector']) ? spec['selector'] : labels;
  const errs = [...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds')];
  if (Object.keys(selector).length === 0) errs.push(fieldRequired('spec.selector'));
  errs.push(...validateLabels(spec['selector'], 'spec.selector'));
  errs.push(...nonNegative(spec['replicas'], 'spec.replicas'));
  if (!isObject(spec['template'])) return [...errs, fieldRequired('spec.template')];
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(invalidRendered('spec.template.metadata.labels', goStringMap(obj(template['metadata'])['labels']), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const templateSpec = obj(template['spec']);
  if (present(templateSpec['restartPolicy']) && templateSpec['restartPolicy'] !== 'Always') {
    errs.push(fieldNotSupported('spec.template.spec.restartPolicy', templateSpec['restartPolicy'], ['Always']));
  }
  if (present(templateSpec['activeDeadlineSeconds'])) errs.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
  return errs;
}

export function validatePodTemplate(pt: Obj): FieldError[] {
  return validatePodTemplateSpec(obj(pt['template']), 'template');
}

