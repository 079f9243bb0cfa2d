// The Pod Security Standards' checks as of 1.25: each looks at a pod's metadata and spec and says
// what, if anything, the level forbids, in the reference's words. Versioned: a check applies from
// its minimum policy version, with the variant of the newest version not above the one evaluated.
import { allContainers } from '../pods.js';
import { arrayOf, objectOf, objectsOf, stringOf, type JsonObject } from '../support.js';
import type { Level } from './policy.js';

export interface Violation {
  reason: string;
  /** What exactly, e.g. `container "c" must set securityContext.allowPrivilegeEscalation=false` (may be empty). */
  detail: string;
}

/** undefined when the pod passes. */
export type CheckPod = (metadata: JsonObject, spec: JsonObject) => Violation | undefined;

export interface VersionedCheck {
  /** The first policy version (v1.<minor>) this variant applies to. */
  minimum: number;
  check: CheckPod;
  /** Baseline checks this restricted check replaces (it is their stricter form). */
  overrides?: string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  versions: VersionedCheck[];
}

// ---- helpers, worded as the reference words its details ----

function pluralize(singular: string, plural: string, n: number): string {
  return n === 1 ? singular : plural;
}

function joinQuote(items: string[]): string {
  return items.map((s) => JSON.stringify(s)).join(', ');
}

/** A set's members in sorted order (the reference lists sets sorted). */
function sorted(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

function containersWord(names: string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

function containers(spec: JsonObject): JsonObject[] {
  return allContainers(spec).map((c) => c.container);
}

function nameOf(container: JsonObject): string {
  return stringOf(container['name']) ?? '';
}

function securityContext(o: JsonObject): JsonObject | undefined {
  return objectOf(o['securityContext']);
}

function isWindows(spec: JsonObject): boolean {
  return objectOf(spec['os'])?.['name'] === 'windows';
}

/** Windows pods are exempt from Linux-only restricted checks from v1.25. */
function exceptWindows(check: CheckPod): CheckPod {
  return (metadata, spec) => (isWindows(spec) ? undefined : check(metadata, spec));
}

// ---- baseline ----

const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

const appArmorProfile: CheckPod = (metadata) => {
  const bad: string[] = [];
  for (const [key, value] of Object.entries(objectOf(metadata['annotations']) ?? {})) {
    if (!key.startsWith(APPARMOR_PREFIX) || typeof value !== 'string') continue;
    if (value === '' || value === 'runtime/default' || value.startsWith('localhost/')) continue;
    bad.push(`${key}=${JSON.stringify(value)}`);
  }
  if (!bad.length) return undefined;
  return { reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', bad.length), detail: bad.sort().join(', ') };
};

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID',
  'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

const capabilitiesBaseline: CheckPod = (_m, spec) => {
  const badContainers: string[] = [];
  const added: string[] = [];
  for (const c of containers(spec)) {
    const caps = objectOf(securityContext(c)?.['capabilities']);
    if (!caps) continue;
    const extra = arrayOf(caps['add']).map(String).filter((cap) => !BASELINE_CAPABILITIES.has(cap));
    if (extra.length) {
      badContainers.push(nameOf(c));
      added.push(...extra);
    }
  }
  if (!badContainers.length) return undefined;
  return {
    reason: 'non-default capabilities',
    detail: `${containersWord(badContainers)} must not include ${joinQuote(sorted(added))} in securityContext.capabilities.add`,
  };
};

const hostNamespaces: CheckPod = (_m, spec) => {
  const used = ['hostNetwork', 'hostIPC', 'hostPID'].filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return used.length ? { reason: 'host namespaces', detail: sorted(used).join(', ') } : undefined;
};

const hostPathVolumes: CheckPod = (_m, spec) => {
  const names = objectsOf(spec['volumes']).filter((v) => objectOf(v['hostPath'])).map((v) => stringOf(v['name']) ?? '');
  if (!names.length) return undefined;
  return { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` };
};

const hostPorts: CheckPod = (_m, spec) => {
  const badContainers: string[] = [];
  const ports: string[] = [];
  for (const c of containers(spec)) {
    const used = objectsOf(c['ports']).map((p) => p['hostPort']).filter((p) => typeof p === 'number' && p !== 0);
    if (!used.length) continue;
    badContainers.push(nameOf(c));
    ports.push(...used.map(String));
  }
  if (!badContainers.length) return undefined;
  const portList = sorted(ports);
  return {
    reason: 'hostPort',
    detail: `${containersWord(badContainers)} ${pluralize('uses', 'use', badContainers.length)} ${pluralize('hostPort', 'hostPorts', portList.length)} ${portList.join(', ')}`,
  };
};

const privileged: CheckPod = (_m, spec) => {
  const bad = containers(spec).filter((c) => securityContext(c)?.['privileged'] === true).map(nameOf);
  return bad.length ? { reason: 'privileged', detail: `${containersWord(bad)} must not set securityContext.privileged=true` } : undefined;
};

const procMount: CheckPod = (_m, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containers(spec)) {
    const value = securityContext(c)?.['procMount'];
    if (value === undefined || value === null || value === 'Default') continue;
    bad.push(nameOf(c));
    types.push(String(value));
  }
  if (!bad.length) return undefined;
  return { reason: 'procMount', detail: `${containersWord(bad)} must not set securityContext.procMount to ${joinQuote(sorted(types))}` };
};

const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const seLinuxOptions: CheckPod = (_m, spec) => {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (options: JsonObject): boolean => {
    let ok = true;
    const type = stringOf(options['type']) ?? '';
    if (!SELINUX_TYPES.has(type)) {
      ok = false;
      badTypes.push(type);
    }
    if (stringOf(options['user'])) {
      ok = false;
      setUser = true;
    }
    if (stringOf(options['role'])) {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOptions = objectOf(securityContext(spec)?.['seLinuxOptions']);
  if (podOptions && !valid(podOptions)) setters.push('pod');
  const bad = containers(spec).filter((c) => {
    const options = objectOf(securityContext(c)?.['seLinuxOptions']);
    return options !== undefined && !valid(options);
  }).map(nameOf);
  if (bad.length) setters.push(containersWord(bad));
  if (!setters.length) return undefined;
  const data: string[] = [];
  if (badTypes.length) {
    const types = sorted(badTypes);
    data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    // As in 1.25, user and role are named only alongside a forbidden type.
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
  }
  return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
};

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

/** Before v1.19 seccomp was set by annotations. */
const seccompProfileBaselineAnnotations: CheckPod = (metadata, spec) => {
  const annotations = objectOf(metadata['annotations']) ?? {};
  const allowed = (v: unknown) => v === 'runtime/default' || v === 'docker/default' || (typeof v === 'string' && v.startsWith('localhost/'));
  const bad: string[] = [];
  const consider = (key: string) => {
    if (key in annotations && !allowed(annotations[key])) bad.push(`${key}=${JSON.stringify(annotations[key])}`);
  };
  consider(SECCOMP_POD_ANNOTATION);
  for (const c of containers(spec)) consider(SECCOMP_CONTAINER_PREFIX + nameOf(c));
  const list = sorted(bad);
  if (!list.length) return undefined;
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}` };
};

function validSeccompType(type: unknown): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

/** Pod and containers that set a seccomp type other than RuntimeDefault or Localhost, and the values. */
function explicitSeccompSetters(spec: JsonObject): { setters: string[]; values: string[]; podValid: boolean; unset: string[] } {
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = objectOf(securityContext(spec)?.['seccompProfile']);
  const podValid = podProfile !== undefined && validSeccompType(podProfile['type']);
  if (podProfile && !podValid) {
    setters.push('pod');
    values.push(String(podProfile['type'] ?? ''));
  }
  const bad: string[] = [];
  const unset: string[] = [];
  for (const c of containers(spec)) {
    const profile = objectOf(securityContext(c)?.['seccompProfile']);
    if (!profile) {
      unset.push(nameOf(c));
    } else if (!validSeccompType(profile['type'])) {
      bad.push(nameOf(c));
      values.push(String(profile['type'] ?? ''));
    }
  }
  if (bad.length) setters.push(containersWord(bad));
  return { setters, values: sorted(values), podValid, unset };
}

const seccompProfileBaseline: CheckPod = (_m, spec) => {
  const { setters, values } = explicitSeccompSetters(spec);
  if (!setters.length) return undefined;
  return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}` };
};

const ALLOWED_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
]);

const sysctls: CheckPod = (_m, spec) => {
  const bad = objectsOf(securityContext(spec)?.['sysctls']).map((s) => stringOf(s['name']) ?? '').filter((n) => !ALLOWED_SYSCTLS.has(n));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
};

const windowsHostProcess: CheckPod = (_m, spec) => {
  const hostProcess = (o: JsonObject) => objectOf(securityContext(o)?.['windowsOptions'])?.['hostProcess'] === true;
  const setters: string[] = [];
  if (hostProcess(spec)) setters.push('pod');
  const bad = containers(spec).filter(hostProcess).map(nameOf);
  if (bad.length) setters.push(containersWord(bad));
  if (!setters.length) return undefined;
  return { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};

// ---- restricted ----

const allowPrivilegeEscalation: CheckPod = (_m, spec) => {
  const bad = containers(spec).filter((c) => securityContext(c)?.['allowPrivilegeEscalation'] !== false).map(nameOf);
  if (!bad.length) return undefined;
  return { reason: 'allowPrivilegeEscalation != false', detail: `${containersWord(bad)} must set securityContext.allowPrivilegeEscalation=false` };
};

const capabilitiesRestricted: CheckPod = (_m, spec) => {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const forbiddenCaps: string[] = [];
  for (const c of containers(spec)) {
    const caps = objectOf(securityContext(c)?.['capabilities']);
    if (!caps) {
      missingDropAll.push(nameOf(c));
      continue;
    }
    if (!arrayOf(caps['drop']).includes('ALL')) missingDropAll.push(nameOf(c));
    const extra = arrayOf(caps['add']).map(String).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length) {
      adding.push(nameOf(c));
      forbiddenCaps.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${containersWord(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersWord(adding)} must not include ${joinQuote(sorted(forbiddenCaps))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
/** Restricted volume sources, in the order the reference tells them apart. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder',
  'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume',
  'scaleIO', 'storageos',
];

const restrictedVolumes: CheckPod = (_m, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of objectsOf(spec['volumes'])) {
    const has = (k: string) => v[k] !== undefined && v[k] !== null;
    if (ALLOWED_VOLUME_SOURCES.some(has)) continue;
    bad.push(stringOf(v['name']) ?? '');
    types.push(RESTRICTED_VOLUME_SOURCES.find(has) ?? 'unknown');
  }
  if (!bad.length) return undefined;
  const typeList = sorted(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', typeList.length)} ${joinQuote(typeList)}`,
  };
};

const runAsNonRoot: CheckPod = (_m, spec) => {
  const setters: string[] = [];
  const podValue = securityContext(spec)?.['runAsNonRoot'];
  if (podValue === false) setters.push('pod');
  const podNonRoot = podValue === true;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of containers(spec)) {
    const value = securityContext(c)?.['runAsNonRoot'];
    if (typeof value === 'boolean') {
      if (!value) explicitlyBad.push(nameOf(c));
    } else if (!podNonRoot) {
      implicitlyBad.push(nameOf(c));
    }
  }
  if (explicitlyBad.length) setters.push(containersWord(explicitlyBad));
  if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicitlyBad.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersWord(implicitlyBad)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: CheckPod = (_m, spec) => {
  const setters: string[] = [];
  if (securityContext(spec)?.['runAsUser'] === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => securityContext(c)?.['runAsUser'] === 0).map(nameOf);
  if (bad.length) setters.push(containersWord(bad));
  return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
};

const seccompProfileRestricted: CheckPod = (_m, spec) => {
  const { setters, values, podValid, unset } = explicitSeccompSetters(spec);
  if (setters.length) {
    return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(values)}` };
  }
  // Containers without a profile of their own are covered only by a valid pod-level one.
  if (!podValid && unset.length) {
    return { reason: 'seccompProfile', detail: `pod or ${containersWord(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  }
  return undefined;
};

/** Every check, with its versions. */
export const CHECKS: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimum: 0, check: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimum: 0, check: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimum: 0, check: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimum: 0, check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimum: 0, check: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimum: 0, check: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimum: 0, check: procMount }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ minimum: 0, check: seLinuxOptions }] },
  {
    id: 'seccompProfile_baseline', level: 'baseline',
    versions: [{ minimum: 0, check: seccompProfileBaselineAnnotations }, { minimum: 19, check: seccompProfileBaseline }],
  },
  { id: 'sysctls', level: 'baseline', versions: [{ minimum: 0, check: sysctls }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimum: 0, check: windowsHostProcess }] },
  {
    id: 'allowPrivilegeEscalation', level: 'restricted',
    versions: [{ minimum: 8, check: allowPrivilegeEscalation }, { minimum: 25, check: exceptWindows(allowPrivilegeEscalation) }],
  },
  {
    id: 'capabilities_restricted', level: 'restricted',
    versions: [
      { minimum: 22, check: capabilitiesRestricted, overrides: ['capabilities_baseline'] },
      { minimum: 25, check: exceptWindows(capabilitiesRestricted), overrides: ['capabilities_baseline'] },
    ],
  },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimum: 0, check: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimum: 0, check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimum: 23, check: runAsUser }] },
  {
    id: 'seccompProfile_restricted', level: 'restricted',
    versions: [
      { minimum: 19, check: seccompProfileRestricted, overrides: ['seccompProfile_baseline'] },
      { minimum: 25, check: exceptWindows(seccompProfileRestricted), overrides: ['seccompProfile_baseline'] },
    ],
  },
];
