// Pods and pod templates: the pod spec's rules (ValidatePodSpec), pod creation, and templates
// embedded in workloads. (Updates: core-pod-update.ts.)
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldRequired } from '../../errors.js';
import { isQualifiedName, validateLabels } from '../names.js';
import { idErrors, validateContainerList, validateImageWhitespace, validateInitContainers, validateSeccompProfile } from './core-containers.js';
import { quantities, validateContainerResourceName, validateQuantityValue } from './core-resources.js';
import { validateVolumes } from './core-volumes.js';
import { arr, child, dnsLabel, dnsSubdomain, enumField, entries, index, inclusiveRange, invalidAll, ipErrors, isValidIP, key, num, obj, objs, type Obj, present, qualifiedName, str, strings } from './helpers.js';
import { validateAffinity, validateTolerations, validateTopologySpread } from './core-pod-scheduling.js';
import { isObject } from '../../json.js';

const MAX_INT32 = 2147483647;

function validateDNSConfig(spec: Obj, field: string): FieldError[] {
  const config = spec['dnsConfig'];
  if (spec['dnsPolicy'] === 'None') {
    if (!isObject(config)) return [fieldRequired(field, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (strings(config['nameservers']).length === 0) return [fieldRequired(child(field, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObject(config)) return [];
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
  if (!isObject(sc)) return errs;
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
  if (isObject(spec['os'])) errs.push(...enumField(spec['os']['name'], child(field, 'os', 'name'), ['linux', 'windows']));
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
export function validatePodContents(pod: Obj): FieldError[] {
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
