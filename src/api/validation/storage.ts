// storage.k8s.io/v1: StorageClass, CSIDriver, VolumeAttachment.
import { type FieldError, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong } from '../../errors.js';
import { isDNS1123Subdomain } from '../names.js';
import { dnsSubdomain, enumField, entries, immutable, invalidAll, obj, type Obj, present, qualifiedName, semanticEqual, str } from './helpers.js';
import { isObject } from '../../json.js';

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

export function validateStorageClass(sc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(sc['provisioner']);
  if (provisioner === '') errs.push(fieldRequired('provisioner'));
  else errs.push(...qualifiedName(provisioner.toLowerCase(), 'provisioner'));
  const params = entries(sc['parameters']);
  if (params.length > MAX_PARAMETERS) errs.push({ type: 'FieldValueTooLong', field: 'parameters', detail: `Too long: must have at most ${MAX_PARAMETERS} bytes` });
  else {
    let size = 0;
    for (const [k, v] of params) {
      if (k === '') errs.push(fieldInvalid('parameters', k, 'field can not be empty.'));
      size += k.length + str(v).length;
    }
    if (size > MAX_PARAMETERS_SIZE) errs.push(fieldTooLong('parameters', MAX_PARAMETERS_SIZE));
  }
  // reclaimPolicy (Delete) and volumeBindingMode (Immediate) are defaulted.
  if (present(sc['reclaimPolicy']) && str(sc['reclaimPolicy']) !== '') errs.push(...enumField(sc['reclaimPolicy'], 'reclaimPolicy', ['Delete', 'Retain']));
  errs.push(...enumField(sc['volumeBindingMode'], 'volumeBindingMode', ['Immediate', 'WaitForFirstConsumer'], { defaulted: true }));
  return errs;
}

/** Parameters, provisioner, reclaim policy and binding mode are fixed. */
export function validateStorageClassUpdate(sc: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const sameMap = (a: unknown, b: unknown) => (isObject(a) && isObject(b) ? semanticEqual(a, b) && Object.keys(a).length === Object.keys(b).length : isObject(a) === isObject(b));
  if (!sameMap(sc['parameters'], old['parameters'])) errs.push(fieldForbidden('parameters', 'updates to parameters are forbidden.'));
  if (str(sc['provisioner']) !== str(old['provisioner'])) errs.push(fieldForbidden('provisioner', 'updates to provisioner are forbidden.'));
  if ((str(sc['reclaimPolicy']) || 'Delete') !== (str(old['reclaimPolicy']) || 'Delete')) errs.push(fieldForbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...immutable(sc['volumeBindingMode'] ?? 'Immediate', old['volumeBindingMode'] ?? 'Immediate', 'volumeBindingMode'));
  return errs;
}

export function validateCSIDriver(driver: Obj): FieldError[] {
  const name = str(obj(driver['metadata'])['name']);
  const errs: FieldError[] = [];
  if (name === '') errs.push(fieldRequired('name'));
  if (name.length > 63) errs.push(fieldTooLong('name', 63));
  errs.push(...invalidAll('name', name, isDNS1123Subdomain(name.toLowerCase())));
  const spec = obj(driver['spec']);
  if (present(spec['fsGroupPolicy'])) errs.push(...enumField(spec['fsGroupPolicy'], 'spec.fsGroupPolicy', ['File', 'None', 'ReadWriteOnceWithFSType']));
  for (const mode of Array.isArray(spec['volumeLifecycleModes']) ? spec['volumeLifecycleModes'] : []) {
    if (mode !== 'Persistent' && mode !== 'Ephemeral') errs.push(fieldNotSupported('spec.volumeLifecycleModes', mode, ['Ephemeral', 'Persistent']));
  }
  return errs;
}

export function validateCSIDriverUpdate(driver: Obj, old: Obj): FieldError[] {
  const spec = obj(driver['spec']);
  const oldSpec = obj(old['spec']);
  return [
    ...validateCSIDriver(driver),
    ...immutable(spec['attachRequired'], oldSpec['attachRequired'], 'spec.attachedRequired'),
    ...immutable(spec['fsGroupPolicy'], oldSpec['fsGroupPolicy'], 'spec.fsGroupPolicy'),
    ...immutable(spec['podInfoOnMount'], oldSpec['podInfoOnMount'], 'spec.podInfoOnMount'),
    ...immutable(spec['volumeLifecycleModes'], oldSpec['volumeLifecycleModes'], 'spec.volumeLifecycleModes'),
  ];
}

export function validateVolumeAttachment(va: Obj): FieldError[] {
  const spec = obj(va['spec']);
  const errs: FieldError[] = [];
  if (str(spec['attacher']) === '') errs.push(fieldRequired('spec.attacher'));
  const source = obj(spec['source']);
  const inline = isObject(source['inlineVolumeSpec']);
  const pv = present(source['persistentVolumeName']);
  if (!inline && !pv) errs.push(fieldRequired('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (inline && pv) errs.push(fieldForbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (pv && str(source['persistentVolumeName']) === '') errs.push(fieldRequired('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  errs.push(...dnsSubdomain(str(spec['nodeName']), 'spec.nodeName'));
  return errs;
}

/** A VolumeAttachment's spec is read-only. */
export function validateVolumeAttachmentUpdate(va: Obj, old: Obj): FieldError[] {
  const errs = validateVolumeAttachment(va);
  if (!semanticEqual(va['spec'], old['spec'])) errs.push(fieldInvalid('spec', va['spec'], 'field is immutable'));
  return errs;
}
