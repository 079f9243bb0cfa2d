// Pod volumes: unique DNS-label names, exactly one source each, and the common sources' rules.
import { type FieldError, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { Quantity } from '../quantity.js';
import { validateLocalDescendingPath, validateLocalNonReservedPath } from './core-containers.js';
import { VOLUME_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './core-env.js';
import { child, dnsLabel, index, num, obj, objs, type Obj, present, str, strings } from './helpers.js';
import { isObject } from '../../json.js';

const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function fileMode(value: unknown, field: string): FieldError[] {
  const n = num(value);
  return n !== undefined && (n < 0 || n > 0o777) ? [fieldInvalid(field, n, FILE_MODE)] : [];
}

function keyToPaths(items: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(items).forEach((item, i) => {
    const path = index(field, i);
    if (str(item['key']) === '') errs.push(fieldRequired(child(path, 'key')));
    if (str(item['path']) === '') errs.push(fieldRequired(child(path, 'path')));
    errs.push(...validateLocalNonReservedPath(str(item['path']), child(path, 'path')));
    errs.push(...fileMode(item['mode'], child(path, 'mode')));
  });
  return errs;
}

function downwardAPIFile(file: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(file['path']) === '') errs.push(fieldRequired(child(field, 'path')));
  errs.push(...validateLocalNonReservedPath(str(file['path']), child(field, 'path')));
  if (isObject(file['fieldRef'])) {
    errs.push(...validateObjectFieldSelector(file['fieldRef'], VOLUME_FIELD_PATHS, child(field, 'fieldRef')));
    if (isObject(file['resourceFieldRef'])) errs.push(fieldInvalid(field, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObject(file['resourceFieldRef'])) {
    errs.push(...validateResourceFieldSelector(file['resourceFieldRef'], child(field, 'resourceFieldRef'), true));
  } else {
    errs.push(fieldRequired(field, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...fileMode(file['mode'], child(field, 'mode')));
  return errs;
}

function projected(source: Obj, field: string): FieldError[] {
  const errs = fileMode(source['defaultMode'], child(field, 'defaultMode'));
  const paths = new Set<string>();
  const claim = (p: string, value: string) => {
    if (p === '') return;
    if (paths.has(p)) errs.push(fieldInvalid(field, value, 'conflicting duplicate paths'));
    paths.add(p);
  };
  objs(source['sources']).forEach((projection, i) => {
    const srcPath = index(child(field, 'sources'), i);
    let kinds = 0;
    for (const kind of ['secret', 'configMap']) {
      if (!isObject(projection[kind])) continue;
      kinds++;
      const ref = projection[kind];
      if (str(ref['name']) === '') errs.push(fieldRequired(child(srcPath, kind, 'name')));
      objs(ref['items']).forEach((item, j) => {
        errs.push(...keyToPaths([item], child(srcPath, kind, 'items')).map((e) => ({ ...e, field: e.field.replace(/items\[0\]/, `items[${j}]`) })));
        claim(str(item['path']), str(ref['name']));
      });
    }
    if (isObject(projection['downwardAPI'])) {
      kinds++;
      for (const file of objs(projection['downwardAPI']['items'])) {
        errs.push(...downwardAPIFile(file, child(srcPath, 'downwardAPI')));
        claim(str(file['path']), str(file['path']));
      }
    }
    if (isObject(projection['serviceAccountToken'])) {
      kinds++;
      const token = projection['serviceAccountToken'];
      const tokenPath = child(srcPath, 'serviceAccountToken');
      const expiration = num(token['expirationSeconds']);
      if (expiration !== undefined && expiration < 600) errs.push(fieldInvalid(child(tokenPath, 'expirationSeconds'), expiration, 'may not specify a duration less than 10 minutes'));
      if (expiration !== undefined && expiration > 2 ** 32) errs.push(fieldInvalid(child(tokenPath, 'expirationSeconds'), expiration, 'may not specify a duration larger than 2^32 seconds'));
      if (str(token['path']) === '') errs.push(fieldRequired(child(field, 'path')));
      else errs.push(...validateLocalNonReservedPath(str(token['path']), child(field, 'path')));
    }
    if (kinds > 1) errs.push(fieldForbidden(srcPath, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

/** Each source's own checks; sources not listed have none here. */
const SOURCES: Record<string, (source: Obj, field: string, volumeName: string) => FieldError[]> = {
  emptyDir: (s, f) => {
    const limit = Quantity.from(s['sizeLimit']);
    return limit && limit.sign() < 0 ? [fieldForbidden(child(f, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : [];
  },
  hostPath: (s, f) => {
    const p = str(s['path']);
    if (p === '') return [fieldRequired(child(f, 'path'))];
    const errs = p.split('/').includes('..') ? [fieldInvalid(child(f, 'path'), p, "must not contain '..'")] : [];
    if (present(s['type']) && !HOST_PATH_TYPES.includes(str(s['type']))) errs.push(fieldNotSupported(child(f, 'type'), s['type'], HOST_PATH_TYPES));
    return errs;
  },
  gitRepo: (s, f) => [
    ...(str(s['repository']) === '' ? [fieldRequired(child(f, 'repository'))] : []),
    ...validateLocalDescendingPath(str(s['directory']), child(f, 'directory')),
  ],
  secret: (s, f) => [
    ...(str(s['secretName']) === '' ? [fieldRequired(child(f, 'secretName'))] : []),
    ...fileMode(s['defaultMode'], child(f, 'defaultMode')),
    ...keyToPaths(s['items'], child(f, 'items')),
  ],
  configMap: (s, f) => [
    ...(str(s['name']) === '' ? [fieldRequired(child(f, 'name'))] : []),
    ...fileMode(s['defaultMode'], child(f, 'defaultMode')),
    ...keyToPaths(s['items'], child(f, 'items')),
  ],
  nfs: (s, f) => [
    ...(str(s['server']) === '' ? [fieldRequired(child(f, 'server'))] : []),
    ...(str(s['path']) === '' ? [fieldRequired(child(f, 'path'))] : []),
    ...(!str(s['path']).startsWith('/') ? [fieldInvalid(child(f, 'path'), str(s['path']), 'must be an absolute path')] : []),
  ],
  persistentVolumeClaim: (s, f) => (str(s['claimName']) === '' ? [fieldRequired(child(f, 'claimName'))] : []),
  downwardAPI: (s, f) => [...fileMode(s['defaultMode'], child(f, 'defaultMode')), ...objs(s['items']).flatMap((file) => downwardAPIFile(file, f))],
  projected,
  csi: (s, f) => {
    const errs = str(s['driver']) === '' ? [fieldRequired(child(f, 'driver'))] : [];
    const secret = obj(s['nodePublishSecretRef']);
    if (isObject(s['nodePublishSecretRef']) && str(secret['name']) === '') errs.push(fieldRequired(child(f, 'nodePublishSecretRef', 'name')));
    return errs;
  },
  ephemeral: (s, f) => (isObject(s['volumeClaimTemplate']) ? [] : [fieldRequired(child(f, 'volumeClaimTemplate'))]),
  iscsi: (s, f) => [
    ...(str(s['targetPortal']) === '' ? [fieldRequired(child(f, 'targetPortal'))] : []),
    ...(str(s['iqn']) === '' ? [fieldRequired(child(f, 'iqn'))] : []),
  ],
  rbd: (s, f) => [...(strings(s['monitors']).length === 0 ? [fieldRequired(child(f, 'monitors'))] : []), ...(str(s['image']) === '' ? [fieldRequired(child(f, 'image'))] : [])],
  cephfs: (s, f) => (strings(s['monitors']).length === 0 ? [fieldRequired(child(f, 'monitors'))] : []),
  glusterfs: (s, f) => [...(str(s['endpoints']) === '' ? [fieldRequired(child(f, 'endpoints'))] : []), ...(str(s['path']) === '' ? [fieldRequired(child(f, 'path'))] : [])],
  flexVolume: (s, f) => (str(s['driver']) === '' ? [fieldRequired(child(f, 'driver'))] : []),
  gcePersistentDisk: (s, f) => (str(s['pdName']) === '' ? [fieldRequired(child(f, 'pdName'))] : []),
  awsElasticBlockStore: (s, f) => (str(s['volumeID']) === '' ? [fieldRequired(child(f, 'volumeID'))] : []),
  azureFile: (s, f) => [...(str(s['secretName']) === '' ? [fieldRequired(child(f, 'secretName'))] : []), ...(str(s['shareName']) === '' ? [fieldRequired(child(f, 'shareName'))] : [])],
  azureDisk: (s, f) => [...(str(s['diskName']) === '' ? [fieldRequired(child(f, 'diskName'))] : []), ...(str(s['diskURI']) === '' ? [fieldRequired(child(f, 'diskURI'))] : [])],
  cinder: (s, f) => (str(s['volumeID']) === '' ? [fieldRequired(child(f, 'volumeID'))] : []),
  fc: () => [],
  flocker: () => [],
  quobyte: () => [],
  vsphereVolume: () => [],
  photonPersistentDisk: () => [],
  portworxVolume: () => [],
  scaleIO: () => [],
  storageos: () => [],
};

// The order the reference checks sources in (the first one present counts, the others are refused).
const SOURCE_ORDER = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs', 'flocker',
  'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap', 'azureFile',
  'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO', 'csi', 'ephemeral',
];

// Where the reference's paths differ from the JSON names (its own spellings, kept as served).
const FORBIDDEN_PATH: Record<string, string> = { downwardAPI: 'downwarAPI', cephfs: 'cephFS' };
const SOURCE_PATH: Record<string, string> = { gcePersistentDisk: 'persistentDisk' };

function validateSource(volume: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  let sources = 0;
  for (const kind of SOURCE_ORDER) {
    if (!isObject(volume[kind])) continue;
    if (sources > 0) {
      errs.push(fieldForbidden(child(field, FORBIDDEN_PATH[kind] ?? kind), 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    errs.push(...SOURCES[kind]!(volume[kind], child(field, SOURCE_PATH[kind] ?? kind), str(volume['name'])));
  }
  if (sources === 0) errs.push(fieldRequired(field, 'must specify a volume type'));
  return errs;
}

/** ValidateVolumes: the errors, and the names of the volumes that passed (mounts may refer to those). */
export function validateVolumes(list: unknown, field: string): { names: Set<string>; errors: FieldError[] } {
  const names = new Set<string>();
  const errors: FieldError[] = [];
  objs(list).forEach((volume, i) => {
    const path = index(field, i);
    const namePath = child(path, 'name');
    const name = str(volume['name']);
    const errs = validateSource(volume, path);
    if (name === '') errs.push(fieldRequired(namePath));
    else errs.push(...dnsLabel(name, namePath));
    if (names.has(name)) errs.push(fieldDuplicate(namePath, name));
    if (errs.length === 0) names.add(name);
    else errors.push(...errs);
  });
  return { names, errors };
}
