// Pods and pod templates: the pod spec's rules (ValidatePodSpec), pod creation, the few changes a
// pod update may make, and templates embedded in workloads.
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isQualifiedName, isValidLabelValue, validateLabels } from '../names.js';
import { idErrors, validateContainerList, validateImageWhitespace, validateInitContainers, validateSeccompProfile } from './core-containers.js';
import { quantities, validateContainerResourceName, validateQuantityValue } from './core-resources.js';
import { validateVolumes } from './core-volumes.js';
import {
  arr, child, dnsLabel, dnsSubdomain, enumField, entries, index, inclusiveRange, invalidAll, ipErrors, isObj, isValidIP, key, num, obj, objs, type Obj, present,
  qualifiedName, semanticEqual, str, strings,
} from './helpers.js';
import { validateLabelSelector } from './label-selector.js';
import { podSpecDiff } from './pod-spec-diff.js';

const MAX_INT32 = 2147483647;

function validateTolerations(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(list).forEach((t, i) => {
    const path = index(field, i);
    const k = str(t['key']);
    const operator = str(t['operator']);
    const effect = str(t['effect']);
    if (k !== '') errs.push(...qualifiedName(k, child(path, 'key')));
    if (k === '' && operator !== 'Exists') {
      errs.push(fieldInvalid(child(path, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (present(t['tolerationSeconds']) && effect !== 'NoExecute') errs.push(fieldInvalid(child(path, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(str(t['value']));
        if (msgs.length) errs.push(fieldInvalid(child(path, 'operator'), str(t['value']), msgs.join(';')));
        break;
      }
      case 'Exists':
        if (str(t['value']) !== '') errs.push(fieldInvalid(child(path, 'operator'), t, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fieldNotSupported(child(path, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '') errs.push(...enumField(effect, child(path, 'effect'), ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
  });
  return errs;
}

/** Pod updates may only add tolerations (or change an existing one's tolerationSeconds). */
function validateOnlyAddedTolerations(next: unknown, old: unknown, field: string): FieldError[] {
  const added = objs(next);
  for (const previous of objs(old)) {
    const kept = added.some((t) => semanticEqual({ ...previous, tolerationSeconds: t['tolerationSeconds'] }, t));
    if (!kept) return [fieldForbidden(field, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(next, field);
}

function validateNodeSelectorTerm(term: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(term['matchExpressions']).forEach((req, j) => {
    const path = index(child(field, 'matchExpressions'), j);
    const values = strings(req['values']);
    const operator = str(req['operator']);
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0) errs.push(fieldRequired(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    else if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) errs.push(fieldForbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    else if ((operator === 'Gt' || operator === 'Lt') && values.length !== 1) errs.push(fieldRequired(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    else if (!['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'].includes(operator)) errs.push(fieldInvalid(child(path, 'operator'), operator, 'not a valid selector operator'));
    errs.push(...qualifiedName(str(req['key']), child(path, 'key')));
  });
  objs(term['matchFields']).forEach((req, j) => {
    const path = index(child(field, 'matchFields'), j);
    if (str(req['key']) !== 'metadata.name') errs.push(fieldInvalid(child(path, 'key'), str(req['key']), 'not a valid field selector key'));
    const operator = str(req['operator']);
    if (operator !== 'In' && operator !== 'NotIn') errs.push(fieldInvalid(child(path, 'operator'), operator, 'not a valid selector operator'));
    else if (strings(req['values']).length !== 1) errs.push(fieldRequired(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  });
  return errs;
}

function validatePodAffinityTerm(term: Obj, field: string): FieldError[] {
  const errs = [...validateLabelSelector(term['labelSelector'], child(field, 'labelSelector')), ...validateLabelSelector(term['namespaceSelector'], child(field, 'namespaceSelector'))];
  for (const ns of strings(term['namespaces'])) errs.push(...dnsLabel(ns, child(field, 'namespace')));
  const topologyKey = str(term['topologyKey']);
  if (topologyKey === '') errs.push(fieldRequired(child(field, 'topologyKey'), 'can not be empty'));
  errs.push(...qualifiedName(topologyKey, child(field, 'topologyKey')));
  return errs;
}

function weight(value: unknown, field: string): FieldError[] {
  const w = num(value) ?? 0;
  return w <= 0 || w > 100 ? [fieldInvalid(field, w, 'must be in the range 1-100')] : [];
}

function validateAffinity(affinity: unknown, field: string): FieldError[] {
  if (!isObj(affinity)) return [];
  const errs: FieldError[] = [];
  const node = affinity['nodeAffinity'];
  if (isObj(node)) {
    const nodePath = child(field, 'nodeAffinity');
    const required = node['requiredDuringSchedulingIgnoredDuringExecution'];
    if (isObj(required)) {
      const termsPath = child(nodePath, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
      const terms = objs(required['nodeSelectorTerms']);
      if (terms.length === 0) errs.push(fieldRequired(termsPath, 'must have at least one node selector term'));
      terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, index(termsPath, i))));
    }
    objs(node['preferredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      const path = index(child(nodePath, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      errs.push(...weight(t['weight'], child(path, 'weight')), ...validateNodeSelectorTerm(obj(t['preference']), child(path, 'preference')));
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    if (!isObj(affinity[kind])) continue;
    const podPath = child(field, kind);
    objs(affinity[kind]['requiredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      errs.push(...validatePodAffinityTerm(t, index(child(podPath, 'requiredDuringSchedulingIgnoredDuringExecution'), i)));
    });
    objs(affinity[kind]['preferredDuringSchedulingIgnoredDuringExecution']).forEach((t, i) => {
      const path = index(child(podPath, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
      errs.push(...weight(t['weight'], child(path, 'weight')), ...validatePodAffinityTerm(obj(t['podAffinityTerm']), child(path, 'podAffinityTerm')));
    });
  }
  return errs;
}

function validateDNSConfig(spec: Obj, field: string): FieldError[] {
  const config = spec['dnsConfig'];
  if (spec['dnsPolicy'] === 'None') {
    if (!isObj(config)) return [fieldRequired(field, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (strings(config['nameservers']).length === 0) return [fieldRequired(child(field, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObj(config)) return [];
  const errs: FieldError[] = [];
  const nameservers = strings(config['nameservers']);
  if (nameservers.length > 3) errs.push(fieldInvalid(child(field, 'nameservers'), nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...ipErrors(ns, index(child(field, 'nameservers'), i))));
  const searches = strings(config['searches']);
  if (searches.length > 32) errs.push(fieldInvalid(child(field, 'searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(fieldInvalid(child(field, 'searches'), searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  searches.forEach((s, i) => errs.push(...dnsSubdomain(s.replace(/\.$/, ''), index(child(field, 'searches'), i))));
  objs(config['options']).forEach((o, i) => {
    if (str(o['name']) === '') errs.push(fieldRequired(index(child(field, 'options'), i), 'must not be empty'));
  });
  return errs;
}

const SYSCTL_FMT = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_RE = new RegExp(`^${SYSCTL_FMT}$`);

function validatePodSecurityContext(spec: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  // hostNetwork lives in the internal PodSecurityContext: containers must then use their host port.
  if (spec['hostNetwork'] === true) {
    objs(spec['containers']).forEach((c, i) => objs(c['ports']).forEach((p, j) => {
      if (present(p['hostPort']) && p['hostPort'] !== p['containerPort']) {
        errs.push(fieldInvalid(child(index(child(index(child(field, 'containers'), i), 'ports'), j), 'containerPort'), num(p['containerPort']) ?? 0, 'must match `hostPort` when `hostNetwork` is true'));
      }
    }));
  }
  const sc = spec['securityContext'];
  if (!isObj(sc)) return errs;
  const scPath = child(field, 'securityContext');
  errs.push(...idErrors(sc['fsGroup'], child(scPath, 'fsGroup')), ...idErrors(sc['runAsUser'], child(scPath, 'runAsUser')), ...idErrors(sc['runAsGroup'], child(scPath, 'runAsGroup')));
  arr(sc['supplementalGroups']).forEach((g, i) => errs.push(...idErrors(g, index(child(scPath, 'supplementalGroups'), i))));
  if (spec['shareProcessNamespace'] === true && spec['hostPID'] === true) {
    errs.push(fieldInvalid(child(scPath, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  const names = new Set<string>();
  objs(sc['sysctls']).forEach((s, i) => {
    const path = child(index(child(scPath, 'sysctls'), i), 'name');
    const name = str(s['name']);
    if (name === '') errs.push(fieldRequired(path));
    else if (name.length > 253 || !SYSCTL_RE.test(name)) errs.push(fieldInvalid(path, name, `must have at most 253 characters and match regex ${SYSCTL_FMT}`));
    else if (names.has(name)) errs.push(fieldDuplicate(path, name));
    names.add(name);
  });
  if (present(sc['fsGroupChangePolicy'])) errs.push(...enumField(sc['fsGroupChangePolicy'], child(scPath, 'fsGroupChangePolicy'), ['Always', 'OnRootMismatch']));
  errs.push(...validateSeccompProfile(sc['seccompProfile'], child(scPath, 'seccompProfile')));
  return errs;
}

function validateTopologySpread(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const constraints = objs(list);
  constraints.forEach((c, i) => {
    const path = index(field, i);
    const maxSkew = num(c['maxSkew']) ?? 0;
    if (maxSkew <= 0) errs.push(fieldInvalid(child(path, 'maxSkew'), maxSkew, 'must be greater than zero'));
    if (str(c['topologyKey']) === '') errs.push(fieldRequired(child(path, 'topologyKey'), 'can not be empty'));
    const when = str(c['whenUnsatisfiable']);
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(when)) errs.push(fieldNotSupported(child(path, 'whenUnsatisfiable'), when, ['DoNotSchedule', 'ScheduleAnyway']));
    if (constraints.slice(i + 1).some((o) => o['topologyKey'] === c['topologyKey'] && o['whenUnsatisfiable'] === c['whenUnsatisfiable'])) {
      errs.push(fieldDuplicate(child(path, '{topologyKey, whenUnsatisfiable}'), `{${str(c['topologyKey'])}, ${when}}`));
    }
    const minDomains = num(c['minDomains']);
    if (minDomains !== undefined) {
      if (minDomains <= 0) errs.push(fieldInvalid(child(path, 'minDomains'), minDomains, 'must be greater than zero'));
      else if (when !== 'DoNotSchedule') errs.push(fieldInvalid(child(path, 'minDomains'), minDomains, 'can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway'));
    }
    errs.push(...validateLabelSelector(c['labelSelector'], child(path, 'labelSelector')));
  });
  return errs;
}

function validateHostAliases(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const alias of objs(list)) {
    if (!isValidIP(str(alias['ip']))) errs.push(fieldInvalid(child(field, 'ip'), str(alias['ip']), 'must be valid IP address'));
    for (const host of strings(alias['hostnames'])) errs.push(...dnsSubdomain(host, child(field, 'hostnames')));
  }
  return errs;
}

function validateOverhead(overhead: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, q] of quantities(overhead)) {
    const path = key(field, name);
    errs.push(...validateContainerResourceName(name, path), ...validateQuantityValue(name, q, path));
  }
  return errs;
}

/** ValidatePodSpec (1.25), in the reference's order. Defaulted fields are checked when set. */
export function validatePodSpec(spec: Obj, field: string): FieldError[] {
  const { names: volumes, errors } = validateVolumes(spec['volumes'], child(field, 'volumes'));
  const errs = [...errors];
  errs.push(...validateContainerList(spec['containers'], volumes, child(field, 'containers'), false));
  errs.push(...validateInitContainers(spec['initContainers'], spec['containers'], volumes, child(field, 'initContainers')));
  errs.push(...validateEphemeralContainerNames(spec, child(field, 'ephemeralContainers')));
  errs.push(...enumField(spec['restartPolicy'], child(field, 'restartPolicy'), ['Always', 'OnFailure', 'Never'], { defaulted: true }));
  errs.push(...enumField(spec['dnsPolicy'], child(field, 'dnsPolicy'), ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'], { defaulted: true }));
  errs.push(...validateLabels(spec['nodeSelector'], child(field, 'nodeSelector')));
  errs.push(...validatePodSecurityContext(spec, field));
  objs(spec['imagePullSecrets']).forEach((s, i) => {
    if (Object.keys(s).some((k) => k !== 'name')) errs.push(fieldInvalid(index(child(field, 'imagePullSecrets'), i), s, 'only name may be set'));
  });
  errs.push(...validateAffinity(spec['affinity'], child(field, 'affinity')));
  errs.push(...validateDNSConfig(spec, child(field, 'dnsConfig')));
  objs(spec['readinessGates']).forEach((g, i) => errs.push(...qualifiedName(str(g['conditionType']), child(index(child(field, 'readinessGates'), i), 'conditionType'))));
  errs.push(...validateTopologySpread(spec['topologySpreadConstraints'], child(field, 'topologySpreadConstraints')));
  if (spec['hostUsers'] === false) {
    if (spec['hostNetwork'] === true) errs.push(fieldForbidden(child(field, 'hostNetwork'), 'when `pod.Spec.HostUsers` is false'));
    if (spec['hostPID'] === true) errs.push(fieldForbidden(child(field, 'HostPID'), 'when `pod.Spec.HostUsers` is false'));
    if (spec['hostIPC'] === true) errs.push(fieldForbidden(child(field, 'HostIPC'), 'when `pod.Spec.HostUsers` is false'));
  }
  if (str(spec['serviceAccountName']) !== '') errs.push(...dnsSubdomain(str(spec['serviceAccountName']), child(field, 'serviceAccountName')));
  if (str(spec['nodeName']) !== '') errs.push(...dnsSubdomain(str(spec['nodeName']), child(field, 'nodeName')));
  const deadline = num(spec['activeDeadlineSeconds']);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) errs.push(fieldInvalid(child(field, 'activeDeadlineSeconds'), deadline, inclusiveRange(1, MAX_INT32)));
  if (str(spec['hostname']) !== '') errs.push(...dnsLabel(str(spec['hostname']), child(field, 'hostname')));
  if (str(spec['subdomain']) !== '') errs.push(...dnsLabel(str(spec['subdomain']), child(field, 'subdomain')));
  errs.push(...validateTolerations(spec['tolerations'], child(field, 'tolerations')));
  errs.push(...validateHostAliases(spec['hostAliases'], child(field, 'hostAliases')));
  if (str(spec['priorityClassName']) !== '') errs.push(...dnsSubdomain(str(spec['priorityClassName']), child(field, 'priorityClassName')));
  if (present(spec['runtimeClassName'])) errs.push(...dnsSubdomain(str(spec['runtimeClassName']), child(field, 'runtimeClassName')));
  if (present(spec['preemptionPolicy'])) errs.push(...enumField(spec['preemptionPolicy'], child(field, 'preemptionPolicy'), ['PreemptLowerPriority', 'Never']));
  errs.push(...validateOverhead(spec['overhead'], child(field, 'overhead')));
  if (isObj(spec['os'])) errs.push(...enumField(spec['os']['name'], child(field, 'os', 'name'), ['linux', 'windows']));
  return errs;
}

/** Ephemeral containers: names unique across all of the pod's containers. */
function validateEphemeralContainerNames(spec: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set([...objs(spec['containers']), ...objs(spec['initContainers'])].map((c) => str(c['name'])));
  objs(spec['ephemeralContainers']).forEach((c, i) => {
    const path = child(index(field, i), 'name');
    const name = str(c['name']);
    if (name === '') errs.push(fieldRequired(path));
    else errs.push(...dnsLabel(name, path));
    if (names.has(name)) errs.push(fieldDuplicate(path, name));
    names.add(name);
  });
  return errs;
}

function validatePodAnnotations(annotations: unknown, field: string): FieldError[] {
  const cost = obj(annotations)['controller.kubernetes.io/pod-deletion-cost'];
  if (typeof cost === 'string' && !/^[-+]?\d+$/.test(cost.trim()) || (typeof cost === 'string' && Math.abs(Number(cost)) > 2 ** 31)) {
    return [fieldInvalid(key(field, 'controller.kubernetes.io/pod-deletion-cost'), cost, 'must be a 32bit integer')];
  }
  return [];
}

/** The pod checks shared by create and update (validatePodMetadataAndSpec). */
function validatePodContents(pod: Obj): FieldError[] {
  const meta = obj(pod['metadata']);
  const spec = obj(pod['spec']);
  return [
    ...validatePodAnnotations(meta['annotations'], 'metadata.annotations'),
    ...validatePodSpec(spec, 'spec'),
    ...validateImageWhitespace(spec['containers'], 'spec.containers'),
    ...validateImageWhitespace(spec['initContainers'], 'spec.initContainers'),
  ];
}

export function validatePodCreate(pod: Obj): FieldError[] {
  const errs = validatePodContents(pod);
  if (objs(obj(pod['spec'])['ephemeralContainers']).length > 0) errs.push(fieldForbidden('spec.ephemeralContainers', 'cannot be set on create'));
  return errs;
}

const UPDATABLE = 'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Container lists may not grow or shrink, and images may not be emptied. */
function validateContainerUpdates(next: unknown, old: unknown, field: string): { errors: FieldError[]; stop: boolean } {
  const nextList = objs(next);
  if (nextList.length !== objs(old).length) return { errors: [fieldForbidden(field, 'pod updates may not add or remove containers')], stop: true };
  const errors: FieldError[] = [];
  nextList.forEach((c, i) => {
    const image = str(c['image']);
    if (image === '') errors.push(fieldRequired(child(index(field, i), 'image')));
    if (image.trim() !== image) errors.push(fieldInvalid(child(index(field, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errors, stop: false };
}

/** ValidatePodUpdate: the new pod's own checks, then only images, deadline, tolerations and (one case of) grace period may change. */
export function validatePodUpdate(pod: Obj, old: Obj): FieldError[] {
  const errs = validatePodContents(pod);
  const spec = obj(pod['spec']);
  const oldSpec = obj(old['spec']);
  for (const list of ['containers', 'initContainers']) {
    const { errors, stop } = validateContainerUpdates(spec[list], oldSpec[list], child('spec', list));
    errs.push(...errors);
    if (stop) return errs;
  }
  const deadline = num(spec['activeDeadlineSeconds']);
  const oldDeadline = num(oldSpec['activeDeadlineSeconds']);
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) return [...errs, fieldInvalid('spec.activeDeadlineSeconds', deadline, inclusiveRange(0, MAX_INT32))];
    if (oldDeadline !== undefined && oldDeadline < deadline) return [...errs, fieldInvalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
  } else if (oldDeadline !== undefined) {
    errs.push(fieldInvalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec['tolerations'], oldSpec['tolerations'], 'spec.tolerations'));

  // What may change is taken from the old spec; anything else that differs is refused, with a diff.
  const munged: Obj = structuredClone(spec);
  for (const list of ['containers', 'initContainers']) {
    if (!Array.isArray(munged[list])) continue;
    munged[list] = objs(munged[list]).map((c, i) => {
      const image = objs(oldSpec[list])[i]?.['image'];
      const copy = { ...c };
      if (image === undefined) delete copy['image'];
      else copy['image'] = image;
      return copy;
    });
  }
  setOrDelete(munged, 'activeDeadlineSeconds', oldSpec['activeDeadlineSeconds']);
  const oldGrace = num(oldSpec['terminationGracePeriodSeconds']);
  if (oldGrace !== undefined && oldGrace < 0 && munged['terminationGracePeriodSeconds'] === 1) munged['terminationGracePeriodSeconds'] = oldGrace;
  setOrDelete(munged, 'tolerations', oldSpec['tolerations']);
  const diff = podSpecDiff(oldSpec, munged);
  if (diff !== '') errs.push(fieldForbidden('spec', `${UPDATABLE}\n${diff}`));
  return errs;
}

function setOrDelete(o: Obj, k: string, v: unknown): void {
  if (v === undefined) delete o[k];
  else o[k] = v;
}

/** ValidatePodTemplateSpec: the template's labels and annotations, its pod spec, no ephemeral containers. */
export function validatePodTemplateSpec(template: Obj, field: string): FieldError[] {
  const meta = obj(template['metadata']);
  const spec = obj(template['spec']);
  const errs = [...validateLabels(meta['labels'], child(field, 'labels'))];
  for (const [k] of entries(meta['annotations'])) errs.push(...invalidAll(child(field, 'annotations'), k, isQualifiedName(k.toLowerCase())));
  errs.push(...validatePodAnnotations(meta['annotations'], child(field, 'annotations')));
  errs.push(...validatePodSpec(spec, child(field, 'spec')));
  if (objs(spec['ephemeralContainers']).length > 0) errs.push(fieldForbidden(child(field, 'spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  return errs;
}
