// Conversion between served versions of one resource. Objects are stored in one storage version
// (the group's preferred version that has the resource) and converted when read or written in another.
// Versions whose schemas are the same but for apiVersion (flowcontrol v1beta1/v1beta2, storage
// v1beta1/v1 CSIStorageCapacity, autoscaling v2beta2/v2) convert by renaming apiVersion; resources with
// real schema differences register a converter here.
import { type JsonObject } from '../json.js';

export type Converter = (obj: JsonObject, fromVersion: string, toVersion: string) => JsonObject;

const converters = new Map<string, Converter>();

export function registerConverter(group: string, resource: string, converter: Converter): void {
  converters.set(`${group}/${resource}`, converter);
}

export function convert(obj: JsonObject, group: string, resource: string, fromVersion: string, toVersion: string): JsonObject {
  if (fromVersion === toVersion) return obj;
  const converter = converters.get(`${group}/${resource}`);
  const out = converter ? converter(obj, fromVersion, toVersion) : { ...obj };
  out['apiVersion'] = group ? `${group}/${toVersion}` : toVersion;
  return out;
}
