// Defaults of volume sources (pod volumes and the persistent volume sources that share their
// rules), of downward API items, and of claims (PersistentVolumeClaim and the claim templates
// nested in pods and StatefulSets).
import { ensureObject, objectAt, objectAtPath, objectsAt, setIfEmpty, setIfNil, zeroObjectMeta, type Obj } from './fields.js';

/** File mode 0644 of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_FILE_MODE = 0o644;

// Every source a pod volume may name; a volume naming none is an emptyDir.
const POD_VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc',
  'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral',
];

/** fieldRef.apiVersion "v1"; a resourceFieldRef's divisor is a Quantity value, written "0" when zero. */
export function defaultFieldSelectors(holder: Obj): void {
  const fieldRef = objectAt(holder, 'fieldRef');
  if (fieldRef) setIfEmpty(fieldRef, 'apiVersion', 'v1');
  const resourceFieldRef = objectAt(holder, 'resourceFieldRef');
  if (resourceFieldRef) setIfNil(resourceFieldRef, 'divisor', '0');
}

function defaultDownwardApiItems(source: Obj): void {
  for (const item of objectsAt(source, 'items')) defaultFieldSelectors(item);
}

/** Sources a PersistentVolume shares with pod volumes (hostPath, iscsi, rbd, azureDisk, scaleIO). */
export function defaultSharedSources(holder: Obj): void {
  const hostPath = objectAt(holder, 'hostPath');
  if (hostPath) setIfNil(hostPath, 'type', '');
  const iscsi = objectAt(holder, 'iscsi');
  if (iscsi) setIfEmpty(iscsi, 'iscsiInterface', 'default');
  const rbd = objectAt(holder, 'rbd');
  if (rbd) {
    setIfEmpty(rbd, 'pool', 'rbd');
    setIfEmpty(rbd, 'user', 'admin');
    setIfEmpty(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const azureDisk = objectAt(holder, 'azureDisk');
  if (azureDisk) {
    setIfNil(azureDisk, 'cachingMode', 'ReadWrite');
    setIfNil(azureDisk, 'kind', 'Shared');
    setIfNil(azureDisk, 'fsType', 'ext4');
    setIfNil(azureDisk, 'readOnly', false);
  }
  const scaleIO = objectAt(holder, 'scaleIO');
  if (scaleIO) {
    setIfEmpty(scaleIO, 'storageMode', 'ThinProvisioned');
    setIfEmpty(scaleIO, 'fsType', 'xfs');
  }
}

function defaultProjected(projected: Obj): void {
  setIfNil(projected, 'defaultMode', DEFAULT_FILE_MODE);
  for (const source of objectsAt(projected, 'sources')) {
    const downwardAPI = objectAt(source, 'downwardAPI');
    if (downwardAPI) defaultDownwardApiItems(downwardAPI);
    const token = objectAt(source, 'serviceAccountToken');
    if (token) setIfNil(token, 'expirationSeconds', 3600);
  }
}

export function defaultPodVolume(volume: Obj): void {
  if (POD_VOLUME_SOURCES.every((k) => volume[k] === undefined || volume[k] === null)) volume['emptyDir'] = {};
  defaultSharedSources(volume);
  for (const key of ['secret', 'configMap']) {
    const source = objectAt(volume, key);
    if (source) setIfNil(source, 'defaultMode', DEFAULT_FILE_MODE);
  }
  const downwardAPI = objectAt(volume, 'downwardAPI');
  if (downwardAPI) {
    setIfNil(downwardAPI, 'defaultMode', DEFAULT_FILE_MODE);
    defaultDownwardApiItems(downwardAPI);
  }
  const projected = objectAt(volume, 'projected');
  if (projected) defaultProjected(projected);
  const claimTemplate = objectAtPath(volume, 'ephemeral', 'volumeClaimTemplate');
  if (claimTemplate) {
    zeroObjectMeta(claimTemplate);
    const spec = ensureObject(claimTemplate, 'spec');
    if (spec) defaultClaimSpec(spec);
  }
}

/** A claim's spec: volumeMode Filesystem; resources is a struct value, written {} when empty. */
export function defaultClaimSpec(spec: Obj): void {
  setIfNil(spec, 'volumeMode', 'Filesystem');
  setIfNil(spec, 'resources', {});
}

/** A whole PersistentVolumeClaim (a stored one or a StatefulSet's template): phase Pending. */
export function defaultClaim(claim: Obj): void {
  const spec = ensureObject(claim, 'spec');
  if (spec) defaultClaimSpec(spec);
  const status = ensureObject(claim, 'status');
  if (status) setIfEmpty(status, 'phase', 'Pending');
}
