// Quantities the reference refuses while decoding a body (before validation): a 400 naming the
// kind, as its decoder reports a bad resource.Quantity. Only the quantity fields of built-in kinds.
import { badRequest, type StatusError } from '../../errors.js';
import { quantityError } from '../quantity.js';
import { arr, obj, objs, type Obj } from './helpers.js';

/** The pod specs an object carries (pods, templates, job templates). */
function podSpecs(kind: string, o: Obj): Obj[] {
  switch (kind) {
    case 'Pod':
      return [obj(o['spec'])];
    case 'PodTemplate':
      return [obj(obj(o['template'])['spec'])];
    case 'CronJob':
      return [obj(obj(obj(obj(obj(o['spec'])['jobTemplate'])['spec'])['template'])['spec'])];
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicationController':
    case 'Job':
      return [obj(obj(obj(o['spec'])['template'])['spec'])];
    default:
      return [];
  }
}

/** Maps of quantities (values) in the object. */
function quantityMaps(kind: string, o: Obj): unknown[] {
  const maps: unknown[] = [];
  for (const spec of podSpecs(kind, o)) {
    for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
      for (const c of objs(spec[list])) maps.push(obj(c['resources'])['limits'], obj(c['resources'])['requests']);
    }
    maps.push(spec['overhead']);
    maps.push(Object.fromEntries(objs(spec['volumes']).map((v, i) => [i, obj(v['emptyDir'])['sizeLimit']])));
  }
  const spec = obj(o['spec']);
  const status = obj(o['status']);
  switch (kind) {
    case 'ResourceQuota':
      maps.push(spec['hard'], status['hard'], status['used']);
      break;
    case 'LimitRange':
      for (const l of objs(spec['limits'])) maps.push(l['max'], l['min'], l['default'], l['defaultRequest'], l['maxLimitRequestRatio']);
      break;
    case 'PersistentVolumeClaim':
      maps.push(obj(spec['resources'])['limits'], obj(spec['resources'])['requests'], status['capacity']);
      break;
    case 'PersistentVolume':
      maps.push(spec['capacity']);
      break;
    case 'Node':
      maps.push(status['capacity'], status['allocatable']);
      break;
    case 'RuntimeClass':
      maps.push(obj(o['overhead'])['podFixed']);
      break;
    case 'StatefulSet':
      for (const t of arr(spec['volumeClaimTemplates'])) {
        const resources = obj(obj(obj(t)['spec'])['resources']);
        maps.push(resources['limits'], resources['requests']);
      }
      break;
  }
  return maps;
}

/** The decoder's error for one JSON value of a quantity field (a string, or a number as its text). */
function decodingError(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return quantityError(String(value));
  return undefined;
}

/** The 400 the reference's decoder answers for the object's first malformed quantity, if any. */
export function quantityDecodingError(target: { kind: string; version: string }, o: Obj): StatusError | undefined {
  for (const map of quantityMaps(target.kind, o)) {
    for (const value of Object.values(obj(map))) {
      if (value === undefined || value === null) continue;
      const why = decodingError(value);
      if (why) return badRequest(`${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}: ${why}`);
    }
  }
  return undefined;
}
