// PersistentVolumeClaims and PersistentVolumes: access modes, storage requests and capacity,
// volume sources, and what an update may change.
import { type FieldError, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { Quantity } from '../quantity.js';
import { validateLabelSelector } from './label-selector.js';
import { child, dnsSubdomain, enumField, immutable, key, obj, type Obj, present, str, strings } from './helpers.js';
import { goCmpDiff, semanticallyEqual } from './go-cmp.js';
import { type GoType, structType } from './go-types.js';
import { isObject, copyJson } from '../../json.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce'];
const VOLUME_MODES = ['Block', 'Filesystem'];

function validateAccessModes(modes: unknown, field: string, required: string): FieldError[] {
  const list = strings(modes);
  const errs = list.length === 0 ? [fieldRequired(field, required)] : [];
  for (const mode of list) if (!ACCESS_MODES.includes(mode)) errs.push(fieldNotSupported(field, mode, ACCESS_MODES));
  return errs;
}

/** ValidatePersistentVolumeClaimSpec (also volume claim templates). */
export function validatePVCSpec(spec: Obj, field: string): FieldError[] {
  const errs = validateAccessModes(spec['accessModes'], child(field, 'accessModes'), 'at least 1 access mode is required');
  if (isObject(spec['selector'])) errs.push(...validateLabelSelector(spec['selector'], child(field, 'selector')));
  const storagePath = key(child(field, 'resources'), 'storage');
  const requests = obj(obj(spec['resources'])['requests']);
  if (!('storage' in requests)) errs.push(fieldRequired(storagePath));
  else {
    const q = Quantity.from(requests['storage']);
    if (q && q.sign() <= 0) errs.push(fieldInvalid(storagePath, q.toString(), 'must be greater than zero'));
  }
  const storageClass = spec['storageClassName'];
  if (typeof storageClass === 'string' && storageClass !== '') errs.push(...dnsSubdomain(storageClass, child(field, 'storageClassName')));
  if (present(spec['volumeMode']) && !VOLUME_MODES.includes(str(spec['volumeMode']))) errs.push(fieldNotSupported(child(field, 'volumeMode'), spec['volumeMode'], VOLUME_MODES));
  for (const source of ['dataSource', 'dataSourceRef']) {
    if (!isObject(spec[source])) continue;
    const ref = spec[source];
    const path = child(field, source);
    if (str(ref['name']) === '') errs.push(fieldRequired(child(path, 'name')));
    if (str(ref['kind']) === '') errs.push(fieldRequired(child(path, 'kind')));
    const apiGroup = str(ref['apiGroup']);
    if (apiGroup === '' && str(ref['kind']) !== 'PersistentVolumeClaim') errs.push(fieldInvalid(path, str(ref['kind']), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
    if (apiGroup !== '') errs.push(...dnsSubdomain(apiGroup, child(path, 'apiGroup')));
  }
  return errs;
}

export function validatePVC(pvc: Obj): FieldError[] {
  return validatePVCSpec(obj(pvc['spec']), 'spec');
}

// The internal types the update diffs are printed in.
const PVC_SPEC_TYPE: GoType = structType('PersistentVolumeClaimSpec')!;
const PV_SOURCE_TYPE: GoType = structType('PersistentVolumeSource')!;

/**
 * A claim's spec is fixed after creation, except a volume name set once, and (bound claims) the
 * storage request, which may only grow.
 */
export function validatePVCUpdate(pvc: Obj, old: Obj): FieldError[] {
  const errs = validatePVC(pvc);
  const spec: Obj = copyJson(obj(pvc['spec']));
  const oldSpec: Obj = copyJson(obj(old['spec']));
  if (str(oldSpec['volumeName']) === '') oldSpec['volumeName'] = spec['volumeName'];
  // The beta annotation may become the storageClassName field once.
  const oldAnnotation = obj(obj(old['metadata'])['annotations'])['volume.beta.kubernetes.io/storage-class'];
  if (oldSpec['storageClassName'] === undefined && spec['storageClassName'] !== undefined && (oldAnnotation === undefined || oldAnnotation === spec['storageClassName'])) {
    oldSpec['storageClassName'] = spec['storageClassName'];
  }
  const bound = str(obj(pvc['status'])['phase']) === 'Bound';
  const newRequests = obj(obj(spec['resources'])['requests']);
  const oldRequests = obj(obj(oldSpec['resources'])['requests']);
  if (bound && isObject(obj(spec['resources'])['requests'])) newRequests['storage'] = oldRequests['storage'];
  if (!semanticallyEqual(PVC_SPEC_TYPE, oldSpec, spec)) {
    errs.push(fieldForbidden('spec', `spec is immutable after creation except resources.requests for bound claims\n${goCmpDiff(PVC_SPEC_TYPE, oldSpec, spec)}`));
  }
  const newSize = Quantity.from(obj(obj(obj(pvc['spec'])['resources'])['requests'])['storage']);
  const oldSize = Quantity.from(obj(obj(obj(old['spec'])['resources'])['requests'])['storage']);
  if (newSize && oldSize && newSize.cmp(oldSize) < 0) errs.push(fieldForbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  errs.push(...immutable(obj(pvc['spec'])['volumeMode'], obj(old['spec'])['volumeMode'], 'volumeMode'));
  return errs;
}

const PV_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'cephfs', 'iscsi', 'cinder', 'fc', 'flexVolume',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO', 'local', 'storageos', 'csi', 'flocker',
];

export function validatePV(pv: Obj): FieldError[] {
  const spec = obj(pv['spec']);
  const errs = validateAccessModes(spec['accessModes'], 'spec.accessModes', '');
  const capacity = obj(spec['capacity']);
  if (Object.keys(capacity).length === 0) errs.push(fieldRequired('spec.capacity'));
  if (!('storage' in capacity) || Object.keys(capacity).length > 1) errs.push(fieldNotSupported('spec.capacity', capacity, ['storage']));
  for (const [name, v] of Object.entries(capacity)) {
    const q = Quantity.from(v);
    if (q && q.sign() <= 0) errs.push(fieldInvalid(key('spec.capacity', name), q.toString(), 'must be greater than zero'));
  }
  const storageClass = str(spec['storageClassName']);
  if (storageClass !== '') errs.push(...dnsSubdomain(storageClass, 'spec.storageClassName'));
  if (present(spec['volumeMode'])) errs.push(...enumField(spec['volumeMode'], 'spec.volumeMode', VOLUME_MODES));
  if (present(spec['persistentVolumeReclaimPolicy'])) errs.push(...enumField(spec['persistentVolumeReclaimPolicy'], 'spec.persistentVolumeReclaimPolicy', ['Delete', 'Recycle', 'Retain']));
  let sources = 0;
  for (const source of PV_SOURCES) {
    if (!isObject(spec[source])) continue;
    if (sources > 0) {
      errs.push(fieldForbidden(child('spec', source), 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    errs.push(...validatePVSource(source, spec[source], child('spec', source), spec));
  }
  if (sources === 0) errs.push(fieldRequired('spec', 'must specify a volume type'));
  return errs;
}

function validatePVSource(kind: string, source: Obj, field: string, spec: Obj): FieldError[] {
  switch (kind) {
    case 'hostPath': {
      const p = str(source['path']);
      if (p === '') return [fieldRequired(child(field, 'path'))];
      return p.split('/').includes('..') ? [fieldInvalid(child(field, 'path'), p, "must not contain '..'")] : [];
    }
    case 'nfs': {
      const errs = str(source['server']) === '' ? [fieldRequired(child(field, 'server'))] : [];
      if (str(source['path']) === '') errs.push(fieldRequired(child(field, 'path')));
      if (!str(source['path']).startsWith('/')) errs.push(fieldInvalid(child(field, 'path'), str(source['path']), 'must be an absolute path'));
      return errs;
    }
    case 'local': {
      const errs = str(source['path']) === '' ? [fieldRequired(child(field, 'path'))] : [];
      if (!isObject(spec['nodeAffinity'])) errs.push(fieldRequired('spec.nodeAffinity', 'Local volume requires node affinity'));
      return errs;
    }
    case 'csi': {
      const errs = str(source['driver']) === '' ? [fieldRequired(child(field, 'driver'))] : [];
      if (str(source['volumeHandle']) === '') errs.push(fieldRequired(child(field, 'volumeHandle')));
      return errs;
    }
    default:
      return [];
  }
}

/** A volume's source is fixed after creation, as is its volume mode. */
export function validatePVUpdate(pv: Obj, old: Obj): FieldError[] {
  const errs = validatePV(pv);
  const spec = obj(pv['spec']);
  const oldSpec = obj(old['spec']);
  if (!semanticallyEqual(PV_SOURCE_TYPE, oldSpec, spec)) {
    errs.push(fieldForbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${goCmpDiff(PV_SOURCE_TYPE, oldSpec, spec)}`));
  }
  errs.push(...immutable(spec['volumeMode'], oldSpec['volumeMode'], 'volumeMode'));
  return errs;
}
