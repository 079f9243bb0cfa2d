// ServiceAccount: every pod runs as a service account ("default" unless it names one) that must
// exist; the account's API credentials are mounted as a projected volume unless the pod or the account
// opts out; mirror pods (the kubelet's static pods) may reference neither accounts nor secrets.
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices } from '../types.js';
import { allContainers, podSpecOf, setContainerField, setSpecField } from './pods.js';
import {
  annotationsOf, arrayOf, forbidden, isResource, plainError, objectOf, objectsOf, readObject, stringOf, type JsonObject,
} from './support.js';

const DEFAULT_ACCOUNT = 'default';
const VOLUME_PREFIX = 'kube-api-access-';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';
/** The bound token's lifetime (the reference's warn-only 1h + 7s). */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** The controller creates "default" shortly after its namespace; the reference retries it this often. */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export const serviceAccount: AdmissionPlugin = {
  name: 'ServiceAccount',
  operations: ['CREATE', 'UPDATE'],
  async mutate(a, services) {
    if (!handles(a) || a.operation !== 'CREATE') return;
    const pod = a.object!;
    if (isMirrorPod(pod)) return validate(a, services);
    const spec = podSpecOf(pod);
    // serviceAccount is the deprecated spelling; the reference reads it when the new one is empty.
    const accountName = stringOf(spec['serviceAccountName']) || stringOf(spec['serviceAccount']) || DEFAULT_ACCOUNT;
    setSpecField(spec, 'serviceAccountName', accountName);
    setSpecField(spec, 'serviceAccount', accountName);
    const account = await lookUp(a, services.registry, accountName, 'mutate');
    if (shouldAutomount(account, spec)) mountToken(spec);
    const pullSecrets = objectsOf(account['imagePullSecrets']);
    if (!arrayOf(spec['imagePullSecrets']).length && pullSecrets.length) {
      setSpecField(spec, 'imagePullSecrets', pullSecrets.map((s) => ({ name: stringOf(s['name']) ?? '' })));
    }
    await validate(a, services);
  },
  validate,
};

function handles(a: AdmissionAttributes): boolean {
  return isResource(a, '', 'pods') && (!a.subresource || a.subresource === 'ephemeralcontainers') && objectOf(a.object) !== undefined;
}

function isMirrorPod(pod: JsonObject): boolean {
  return MIRROR_POD_ANNOTATION in annotationsOf(pod);
}

async function validate(a: AdmissionAttributes, services: AdmissionServices): Promise<void> {
  if (!handles(a)) return;
  const pod = a.object!;
  const spec = objectOf(pod['spec']) ?? {};
  if (a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers') return limitEphemeralContainerSecrets(a, services.registry, spec);
  if (a.operation !== 'CREATE') return;
  if (isMirrorPod(pod)) return validateMirrorPod(a, spec);
  const accountName = stringOf(spec['serviceAccountName']);
  if (!accountName) throw forbidden(a, `no service account specified for pod ${a.namespace}/${a.name}`);
  const account = await lookUp(a, services.registry, accountName, 'validate');
  if (enforcesMountableSecrets(account)) {
    const why = secretReferenceViolation(account, spec);
    if (why) throw forbidden(a, why);
  }
}

function validateMirrorPod(a: AdmissionAttributes, spec: JsonObject): void {
  if (stringOf(spec['serviceAccountName'])) throw forbidden(a, 'a mirror pod may not reference service accounts');
  if (referencesSecrets(spec)) throw forbidden(a, 'a mirror pod may not reference secrets');
  for (const volume of objectsOf(spec['volumes'])) {
    const sources = objectsOf(objectOf(volume['projected'])?.['sources']);
    if (sources.some((s) => objectOf(s['serviceAccountToken']))) {
      throw forbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections');
    }
  }
}

/** The account, waiting a little for "default", which a controller creates after the namespace. */
async function lookUp(a: AdmissionAttributes, registry: Registry, name: string, phase: 'mutate' | 'validate'): Promise<JsonObject> {
  const attempts = name === DEFAULT_ACCOUNT ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
  const interval = 100 + randomInt(100);
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(interval);
    const account = await readObject(registry, '', 'serviceaccounts', a.namespace, name);
    if (account) return account;
  }
  throw forbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`, phase);
}

function shouldAutomount(account: JsonObject, spec: JsonObject): boolean {
  // The pod's preference wins, then the account's; mounting is the default.
  if (typeof spec['automountServiceAccountToken'] === 'boolean') return spec['automountServiceAccountToken'];
  if (typeof account['automountServiceAccountToken'] === 'boolean') return account['automountServiceAccountToken'];
  return true;
}

/** Mounts the token volume in every container and init container that has nothing at the token path. */
function mountToken(spec: JsonObject): void {
  const volumes = objectsOf(spec['volumes']);
  const existing = volumes.find((v) => stringOf(v['name'])?.startsWith(VOLUME_PREFIX));
  const volumeName = existing ? String(existing['name']) : VOLUME_PREFIX + randomSuffix();
  let needsVolume = false;
  for (const { container, kind } of allContainers(spec)) {
    if (kind === 'ephemeralContainers') continue;
    const mounts = objectsOf(container['volumeMounts']);
    if (mounts.some((m) => m['mountPath'] === TOKEN_MOUNT_PATH)) continue;
    setContainerField(container, 'volumeMounts', [...arrayOf(container['volumeMounts']), { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }]);
    needsVolume = true;
  }
  if (!existing && needsVolume) setSpecField(spec, 'volumes', [...arrayOf(spec['volumes']), tokenVolume(volumeName)]);
}

/** The projected volume: a bound token, the cluster CA and the pod's namespace. */
function tokenVolume(name: string): JsonObject {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  };
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return s;
}

function enforcesMountableSecrets(account: JsonObject): boolean {
  const value = stringOf(annotationsOf(account)[ENFORCE_MOUNTABLE_SECRETS]);
  // Go's ParseBool spellings of true.
  return value !== undefined && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value);
}

function namesOf(refs: unknown): Set<string> {
  return new Set(objectsOf(refs).map((r) => stringOf(r['name']) ?? ''));
}

/** Why the pod may not use a secret its account does not list, or undefined. */
function secretReferenceViolation(account: JsonObject, spec: JsonObject): string | undefined {
  const accountName = stringOf(objectOf(account['metadata'])?.['name']) ?? '';
  const mountable = namesOf(account['secrets']);
  const notReferenced = `is not allowed because service account ${accountName} does not reference that secret`;
  for (const volume of objectsOf(spec['volumes'])) {
    const secret = objectOf(volume['secret']);
    if (!secret) continue;
    const secretName = stringOf(secret['secretName']) ?? '';
    if (!mountable.has(secretName)) return `volume with secret.secretName="${secretName}" ${notReferenced}`;
  }
  for (const [kind, label] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
    for (const container of objectsOf(spec[kind])) {
      const why = containerSecretViolation(container, label, mountable, notReferenced);
      if (why) return why;
    }
  }
  const pullSecrets = namesOf(account['imagePullSecrets']);
  const podPullSecrets = objectsOf(spec['imagePullSecrets']);
  for (let i = 0; i < podPullSecrets.length; i++) {
    const name = stringOf(podPullSecrets[i]!['name']) ?? '';
    if (!pullSecrets.has(name)) {
      return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${accountName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

function containerSecretViolation(container: JsonObject, label: string, mountable: Set<string>, notReferenced: string): string | undefined {
  const name = stringOf(container['name']) ?? '';
  for (const env of objectsOf(container['env'])) {
    const ref = objectOf(objectOf(env['valueFrom'])?.['secretKeyRef']);
    const secretName = stringOf(ref?.['name']) ?? '';
    if (ref && !mountable.has(secretName)) {
      return `${label} ${name} with envVar ${stringOf(env['name']) ?? ''} referencing secret.secretName="${secretName}" ${notReferenced}`;
    }
  }
  for (const envFrom of objectsOf(container['envFrom'])) {
    const ref = objectOf(envFrom['secretRef']);
    const secretName = stringOf(ref?.['name']) ?? '';
    if (ref && !mountable.has(secretName)) return `${label} ${name} with envFrom referencing secret.secretName="${secretName}" ${notReferenced}`;
  }
  return undefined;
}

/** Ephemeral containers added later are held to the same account (and its secrets, when enforced). */
async function limitEphemeralContainerSecrets(a: AdmissionAttributes, registry: Registry, spec: JsonObject): Promise<void> {
  const accountName = stringOf(spec['serviceAccountName']);
  if (!accountName) throw forbidden(a, `no service account specified for pod ${a.namespace}/${a.name}`);
  const account = await lookUp(a, registry, accountName, 'validate');
  if (!enforcesMountableSecrets(account)) return;
  const mountable = namesOf(account['secrets']);
  const notReferenced = `is not allowed because service account ${accountName} does not reference that secret`;
  for (const container of objectsOf(spec['ephemeralContainers'])) {
    const why = containerSecretViolation(container, 'ephemeral container', mountable, notReferenced);
    // The reference returns this one without a Status.
    if (why) throw plainError(why);
  }
}

/** Whether any volume, env var or pull secret of the pod names a secret. */
function referencesSecrets(spec: JsonObject): boolean {
  if (objectsOf(spec['imagePullSecrets']).length) return true;
  for (const volume of objectsOf(spec['volumes'])) {
    if (objectOf(volume['secret'])) return true;
    for (const source of objectsOf(objectOf(volume['projected'])?.['sources'])) if (objectOf(source['secret'])) return true;
    for (const kind of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos', 'csi']) {
      const source = objectOf(volume[kind]);
      if (source && (objectOf(source['secretRef']) || objectOf(source['nodePublishSecretRef']) || stringOf(source['secretName']))) return true;
    }
  }
  for (const { container } of allContainers(spec)) {
    if (objectsOf(container['envFrom']).some((e) => objectOf(e['secretRef']))) return true;
    if (objectsOf(container['env']).some((e) => objectOf(objectOf(e['valueFrom'])?.['secretKeyRef']))) return true;
  }
  return false;
}
