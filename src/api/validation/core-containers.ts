// Containers of a pod spec (regular and init): names, image, probes, lifecycle, ports, env,
// volume mounts, pull policy, resources and security context, with the reference's messages.
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldNotSupported, fieldRequired } from '../../errors.js';
import { regexError } from '../names.js';
import { validateEnv, validateEnvFrom } from './core-env.js';
import { validateResourceRequirements } from './core-resources.js';
import { child, dnsLabel, enumField, index, invalidAll, isValidPortName, isValidPortNum, nonNegative, num, obj, objs, type Obj, portNumOrName, present, str, strings } from './helpers.js';
import { isObject } from '../../json.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TERMINATION_MESSAGE = "must be 'File' or 'FallbackToLogsOnError'";

function validateContainerPorts(ports: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(ports).forEach((port, i) => {
    const path = index(field, i);
    const name = str(port['name']);
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length) errs.push(...invalidAll(child(path, 'name'), name, msgs));
      else if (names.has(name)) errs.push(fieldDuplicate(child(path, 'name'), name));
      else names.add(name);
    }
    const containerPort = num(port['containerPort']) ?? 0;
    if (containerPort === 0) errs.push(fieldRequired(child(path, 'containerPort')));
    else errs.push(...invalidAll(child(path, 'containerPort'), containerPort, isValidPortNum(containerPort)));
    const hostPort = num(port['hostPort']) ?? 0;
    if (hostPort !== 0) errs.push(...invalidAll(child(path, 'hostPort'), hostPort, isValidPortNum(hostPort)));
    errs.push(...enumField(port['protocol'], child(path, 'protocol'), PROTOCOLS, { defaulted: true }));
  });
  return errs;
}

/** Host ports may not repeat (per host IP and protocol) across the containers checked together. */
export function hostPortConflicts(containers: Obj[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    objs(c['ports']).forEach((port, pi) => {
      const hostPort = num(port['hostPort']) ?? 0;
      if (hostPort === 0) return;
      const id = `${str(port['hostIP'])}/${str(port['protocol']) || 'TCP'}/${hostPort}`;
      if (seen.has(id)) errs.push(fieldDuplicate(child(index(child(index(field, ci), 'ports'), pi), 'hostPort'), id));
      else seen.add(id);
    });
  });
  return errs;
}

function validateHandler(handler: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let handlers = 0;
  const kinds: Array<[string, (h: Obj, p: string) => FieldError[]]> = [
    ['exec', (h, p) => (strings(h['command']).length === 0 ? [fieldRequired(child(p, 'command'))] : [])],
    ['httpGet', validateHTTPGet],
    ['tcpSocket', (h, p) => portNumOrName(h['port'], child(p, 'port'))],
    ['grpc', (h, p) => invalidAll(child(p, 'port'), num(h['port']) ?? 0, isValidPortNum(num(h['port']) ?? 0))],
  ];
  for (const [name, check] of kinds) {
    if (!isObject(handler[name])) continue;
    if (handlers > 0) errs.push(fieldForbidden(child(field, name), 'may not specify more than 1 handler type'));
    else {
      handlers++;
      errs.push(...check(handler[name], child(field, name)));
    }
  }
  if (handlers === 0) errs.push(fieldRequired(field, 'must specify a handler type'));
  return errs;
}

function validateHTTPGet(http: Obj, field: string): FieldError[] {
  // path ("/") and scheme ("HTTP") are defaulted when absent.
  const errs: FieldError[] = [];
  if (present(http['path']) && str(http['path']) === '') errs.push(fieldRequired(child(field, 'path')));
  errs.push(...portNumOrName(http['port'], child(field, 'port')));
  errs.push(...enumField(http['scheme'], child(field, 'scheme'), ['HTTP', 'HTTPS'], { defaulted: true }));
  for (const header of objs(http['httpHeaders'])) {
    const name = str(header['name']);
    if (!/^[-A-Za-z0-9]+$/.test(name)) errs.push(fieldInvalid(child(field, 'httpHeaders'), name, regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')));
  }
  return errs;
}

function validateProbe(probe: unknown, field: string): FieldError[] {
  if (!isObject(probe)) return [];
  const errs = validateHandler(probe, field);
  for (const k of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) errs.push(...nonNegative(probe[k], child(field, k)));
  const grace = num(probe['terminationGracePeriodSeconds']);
  if (grace !== undefined && grace <= 0) errs.push(fieldInvalid(child(field, 'terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
  return errs;
}

function validateLifecycle(lifecycle: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop']) if (isObject(lifecycle[hook])) errs.push(...validateHandler(lifecycle[hook], child(field, hook)));
  return errs;
}

/** Relative, without '..' elements (subPath, gitRepo directory, key-to-path paths). */
export function validateLocalDescendingPath(value: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (value.startsWith('/')) errs.push(fieldInvalid(field, value, 'must be a relative path'));
  if (value.split('/').includes('..')) errs.push(fieldInvalid(field, value, "must not contain '..'"));
  return errs;
}

export function validateLocalNonReservedPath(value: string, field: string): FieldError[] {
  const errs = validateLocalDescendingPath(value, field);
  if (value.startsWith('..') && !value.startsWith('../')) errs.push(fieldInvalid(field, value, "must not start with '..'"));
  return errs;
}

function validateVolumeMounts(container: Obj, volumes: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  const devices = new Map(objs(container['volumeDevices']).map((d) => [str(d['name']), str(d['devicePath'])]));
  const devicePaths = new Set(devices.values());
  const privileged = obj(container['securityContext'])['privileged'] === true;
  objs(container['volumeMounts']).forEach((mount, i) => {
    const path = index(field, i);
    const name = str(mount['name']);
    const mountPath = str(mount['mountPath']);
    if (name === '') errs.push(fieldRequired(child(path, 'name')));
    if (!volumes.has(name)) errs.push(fieldNotFound(child(path, 'name'), name));
    if (mountPath === '') errs.push(fieldRequired(child(path, 'mountPath')));
    if (mountPaths.has(mountPath)) errs.push(fieldInvalid(child(path, 'mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (devices.has(name)) errs.push(fieldInvalid(child(path, 'name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(fieldInvalid(child(path, 'mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    // The reference reports subPath problems on the list's path, without the index.
    const subPath = str(mount['subPath']);
    if (subPath !== '') errs.push(...validateLocalDescendingPath(subPath, child(field, 'subPath')));
    const subPathExpr = str(mount['subPathExpr']);
    if (subPathExpr !== '') {
      if (subPath !== '') errs.push(fieldInvalid(child(path, 'subPathExpr'), subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(subPathExpr, child(field, 'subPathExpr')));
    }
    if (present(mount['mountPropagation'])) {
      const propagation = str(mount['mountPropagation']);
      const propagationPath = child(field, 'mountPropagation');
      if (!['Bidirectional', 'HostToContainer', 'None'].includes(propagation)) errs.push(fieldNotSupported(propagationPath, propagation, ['Bidirectional', 'HostToContainer', 'None']));
      if (propagation === 'Bidirectional' && !privileged) errs.push(fieldForbidden(propagationPath, 'Bidirectional mount propagation is available only to privileged containers'));
    }
  });
  return errs;
}

const ID_RANGE = 'must be between 0 and 2147483647, inclusive';
export const idErrors = (value: unknown, field: string): FieldError[] => {
  const n = num(value);
  return n !== undefined && (n < 0 || n > 2147483647) ? [fieldInvalid(field, n, ID_RANGE)] : [];
};

export function validateSeccompProfile(profile: unknown, field: string): FieldError[] {
  if (!isObject(profile)) return [];
  const type = str(profile['type']);
  const errs = enumField(type, child(field, 'type'), ['Localhost', 'RuntimeDefault', 'Unconfined']);
  if (type === 'Localhost' && str(profile['localhostProfile']) === '') errs.push(fieldRequired(child(field, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
  if (type !== 'Localhost' && present(profile['localhostProfile'])) errs.push(fieldInvalid(child(field, 'localhostProfile'), str(profile['localhostProfile']), 'can only be set when seccomp type is Localhost'));
  return errs;
}

function validateSecurityContext(sc: unknown, field: string): FieldError[] {
  if (!isObject(sc)) return [];
  const errs = [...idErrors(sc['runAsUser'], child(field, 'runAsUser')), ...idErrors(sc['runAsGroup'], child(field, 'runAsGroup'))];
  if (present(sc['procMount'])) errs.push(...enumField(sc['procMount'], child(field, 'procMount'), ['Default', 'Unmasked']));
  errs.push(...validateSeccompProfile(sc['seccompProfile'], child(field, 'seccompProfile')));
  if (sc['allowPrivilegeEscalation'] === false) {
    if (sc['privileged'] === true) errs.push(fieldInvalid(field, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if (strings(obj(sc['capabilities'])['add']).includes('CAP_SYS_ADMIN')) errs.push(fieldInvalid(field, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  return errs;
}

/**
 * The checks every container of a list gets (validateContainers in 1.25); `init` lists check host
 * ports one container at a time, as init containers run one after the other.
 */
export function validateContainerList(list: unknown, volumes: Set<string>, field: string, init: boolean): FieldError[] {
  const containers = objs(list);
  if (containers.length === 0) return [fieldRequired(field)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const path = index(field, i);
    const namePath = child(path, 'name');
    const name = str(c['name']);
    if (name === '') errs.push(fieldRequired(namePath));
    else errs.push(...dnsLabel(name, namePath));
    if (names.has(name)) errs.push(fieldDuplicate(namePath, name));
    else names.add(name);
    if (str(c['image']) === '') errs.push(fieldRequired(child(path, 'image')));
    if (isObject(c['lifecycle'])) errs.push(...validateLifecycle(c['lifecycle'], child(path, 'lifecycle')));
    errs.push(...validateProbe(c['livenessProbe'], child(path, 'livenessProbe')));
    const readiness = obj(c['readinessProbe']);
    if (present(readiness['terminationGracePeriodSeconds'])) {
      errs.push(fieldInvalid(child(path, 'readinessProbe', 'terminationGracePeriodSeconds'), readiness['terminationGracePeriodSeconds'], 'must not be set for readinessProbes'));
    }
    errs.push(...validateProbe(c['startupProbe'], child(path, 'startupProbe')));
    // successThreshold is defaulted to 1; only an explicit other value is refused.
    const liveness = obj(c['livenessProbe']);
    if (present(liveness['successThreshold']) && liveness['successThreshold'] !== 1) errs.push(fieldInvalid(child(path, 'livenessProbe', 'successThreshold'), liveness['successThreshold'], 'must be 1'));
    errs.push(...validateProbe(c['readinessProbe'], child(path, 'readinessProbe')));
    const startup = obj(c['startupProbe']);
    if (present(startup['successThreshold']) && startup['successThreshold'] !== 1) errs.push(fieldInvalid(child(path, 'startupProbe', 'successThreshold'), startup['successThreshold'], 'must be 1'));
    const policy = c['terminationMessagePolicy'];
    if (present(policy) && policy !== 'File' && policy !== 'FallbackToLogsOnError') {
      errs.push(policy === '' ? fieldRequired(child(path, 'terminationMessagePolicy'), TERMINATION_MESSAGE) : fieldInvalid(child(path, 'terminationMessagePolicy'), policy, TERMINATION_MESSAGE));
    }
    errs.push(...validateContainerPorts(c['ports'], child(path, 'ports')));
    errs.push(...validateEnv(c['env'], child(path, 'env')));
    errs.push(...validateEnvFrom(c['envFrom'], child(path, 'envFrom')));
    errs.push(...validateVolumeMounts(c, volumes, child(path, 'volumeMounts')));
    errs.push(...validateVolumeDevices(c, volumes, child(path, 'volumeDevices')));
    errs.push(...enumField(c['imagePullPolicy'], child(path, 'imagePullPolicy'), ['Always', 'IfNotPresent', 'Never'], { defaulted: true }));
    errs.push(...validateResourceRequirements(obj(c['resources']), child(path, 'resources')));
    errs.push(...validateSecurityContext(c['securityContext'], child(path, 'securityContext')));
  });
  // Init containers are checked one at a time, each as a list of one (so the reference reports index 0).
  if (init) containers.forEach((c) => errs.push(...hostPortConflicts([c], field)));
  else errs.push(...hostPortConflicts(containers, field));
  return errs;
}

function validateVolumeDevices(container: Obj, volumes: Set<string>, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const mounts = new Map(objs(container['volumeMounts']).map((m) => [str(m['name']), str(m['mountPath'])]));
  const mountPaths = new Set(mounts.values());
  const names = new Set<string>();
  const paths = new Set<string>();
  objs(container['volumeDevices']).forEach((device, i) => {
    const path = index(field, i);
    const name = str(device['name']);
    const devicePath = str(device['devicePath']);
    if (name === '') errs.push(fieldRequired(child(path, 'name')));
    if (names.has(name)) errs.push(fieldInvalid(child(path, 'name'), name, 'must be unique'));
    if (devicePath === '') errs.push(fieldRequired(child(path, 'devicePath')));
    if (paths.has(devicePath)) errs.push(fieldInvalid(child(path, 'devicePath'), devicePath, 'must be unique'));
    if (!volumes.has(name)) errs.push(fieldNotFound(child(path, 'name'), name));
    if (mounts.has(name)) errs.push(fieldInvalid(child(path, 'name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(fieldInvalid(child(path, 'devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    names.add(name);
    paths.add(devicePath);
  });
  return errs;
}

/** Init containers: the common checks, names unique across all containers, no lifecycle or probes. */
export function validateInitContainers(list: unknown, regular: unknown, volumes: Set<string>, field: string): FieldError[] {
  const containers = objs(list);
  const errs = containers.length ? validateContainerList(list, volumes, field, true) : [];
  const names = new Set(objs(regular).map((c) => str(c['name'])));
  containers.forEach((c, i) => {
    const path = index(field, i);
    const name = str(c['name']);
    if (names.has(name)) errs.push(fieldDuplicate(child(path, 'name'), name));
    if (name !== '') names.add(name);
    for (const k of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (present(c[k])) errs.push(fieldInvalid(child(path, k), c[k], 'must not be set for init containers'));
    }
  });
  return errs;
}

/** Images may not carry leading or trailing whitespace in pods (templates tolerate it). */
export function validateImageWhitespace(list: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(list).forEach((c, i) => {
    const image = str(c['image']);
    if (image.trim() !== image) errs.push(fieldInvalid(child(index(field, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return errs;
}
