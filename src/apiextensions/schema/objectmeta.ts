// The metadata of a custom resource and of its embedded resources (x-kubernetes-embedded-resource)
// read as the reference reads it: decoded into an ObjectMeta, so fields ObjectMeta does not have
// are dropped (and reported as unknown), and fields of the wrong JSON type fail the decoding.
import { type FieldError, fieldRequired } from '../../errors.js';
import { isDNS1035Label, validateObjectMeta } from '../../api/names.js';
import { isObject } from '../../json.js';
import { childPath, invalidValue } from './render.js';

type FieldKind = 'string' | 'int' | 'time' | 'stringMap' | 'strings' | 'bool' | 'raw' | { list: Record<string, FieldKind>; goType: string };

const OWNER_REFERENCE: Record<string, FieldKind> = {
  apiVersion: 'string', kind: 'string', name: 'string', uid: 'string', controller: 'bool', blockOwnerDeletion: 'bool',
};
const MANAGED_FIELDS_ENTRY: Record<string, FieldKind> = {
  manager: 'string', operation: 'string', apiVersion: 'string', time: 'time', fieldsType: 'string', fieldsV1: 'raw', subresource: 'string',
};

/** metav1.ObjectMeta's JSON fields (1.25). */
const OBJECT_META: Record<string, FieldKind> = {
  name: 'string', generateName: 'string', namespace: 'string', selfLink: 'string', uid: 'string', resourceVersion: 'string',
  generation: 'int', creationTimestamp: 'time', deletionTimestamp: 'time', deletionGracePeriodSeconds: 'int',
  labels: 'stringMap', annotations: 'stringMap',
  ownerReferences: { list: OWNER_REFERENCE, goType: '[]v1.OwnerReference' },
  finalizers: 'strings',
  managedFields: { list: MANAGED_FIELDS_ENTRY, goType: '[]v1.ManagedFieldsEntry' },
};

const GO_TYPES: Record<string, string> = { string: 'string', int: 'int64', time: 'v1.Time', stringMap: 'map[string]string', strings: '[]string', bool: 'bool' };

/** encoding/json's name of a JSON value's kind in "cannot unmarshal X". */
function jsonKind(v: unknown): string {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return isObject(v) ? 'object' : 'string';
}

interface Decoded {
  value: Record<string, unknown>;
  unknown: string[];
  error?: string;
}

function unmarshalError(v: unknown, goField: string, goType: string): string {
  return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${goField} of type ${goType}`;
}

/** Whether a value fits a scalar kind (null fits every kind: the Go zero value). */
function fits(kind: string, v: unknown): boolean {
  if (v === null) return true;
  switch (kind) {
    case 'string': return typeof v === 'string';
    case 'int': return typeof v === 'number' && Number.isInteger(v);
    case 'bool': return typeof v === 'boolean';
    case 'time': return typeof v === 'string' && !Number.isNaN(Date.parse(v));
    default: return true;
  }
}

function decodeStruct(obj: Record<string, unknown>, fields: Record<string, FieldKind>, goName: string, path: string, out: Decoded): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const kind = Object.hasOwn(fields, k) ? fields[k]! : undefined;
    if (kind === undefined) {
      out.unknown.push(`${path}.${k}`);
      continue;
    }
    const goField = `${goName}.${k}`;
    if (typeof kind === 'object') {
      if (v === null) continue;
      if (!Array.isArray(v)) {
        out.error ??= unmarshalError(v, goField, kind.goType);
        continue;
      }
      value[k] = v.map((item, i) => {
        if (!isObject(item)) {
          if (item !== null) out.error ??= unmarshalError(item, goField, kind.goType.slice(2));
          return {};
        }
        return decodeStruct(item, kind.list, goField, `${path}.${k}[${i}]`, out);
      });
    } else if (kind === 'stringMap' || kind === 'strings') {
      if (v === null) continue;
      const container = kind === 'stringMap' ? isObject(v) : Array.isArray(v);
      const members = container ? Object.values(v as object) : [];
      const bad = !container ? v : members.find((m) => typeof m !== 'string' && m !== null);
      if (!container || bad !== undefined) out.error ??= unmarshalError(bad, goField, container ? 'string' : GO_TYPES[kind]!);
      else value[k] = v;
    } else if (kind === 'raw') {
      value[k] = v;
    } else if (!fits(kind, v)) {
      out.error ??= kind === 'time' && typeof v === 'string' ? `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"` : unmarshalError(v, goField, GO_TYPES[kind]!);
    } else if (v !== null && v !== '' && !(kind === 'int' && v === 0 && k === 'generation')) {
      value[k] = v;
    }
  }
  return value;
}

/**
 * GetObjectMeta: an object's `metadata` decoded as an ObjectMeta: the value with only ObjectMeta's
 * fields, the paths of the fields dropped (`<prefix>metadata.foo`), and the decoding error when a
 * field has the wrong type. Undefined when the object has no metadata.
 */
export function decodeObjectMeta(obj: Record<string, unknown>, prefix: string): Decoded | undefined {
  if (!Object.hasOwn(obj, 'metadata')) return undefined;
  const meta = obj['metadata'];
  const path = childPath(prefix, 'metadata');
  const out: Decoded = { value: {}, unknown: [] };
  if (meta === null) return out;
  if (!isObject(meta)) return { value: {}, unknown: [], error: `json: cannot unmarshal ${jsonKind(meta)} into Go value of type v1.ObjectMeta` };
  out.value = decodeStruct(meta, OBJECT_META, 'ObjectMeta', path, out);
  return out;
}

/** schema.ParseGroupVersion's complaint about an apiVersion, if any. */
function groupVersionError(apiVersion: string): string | undefined {
  const parts = apiVersion.split('/');
  if (parts.length > 2 || (parts.length === 2 && (parts[0] === '' || parts[1] === ''))) return `unexpected GroupVersion string: ${apiVersion}`;
  return undefined;
}

/**
 * The checks of an embedded resource (and of a default's object inside metadata): apiVersion and
 * kind present, strings, well-formed; metadata an ObjectMeta that validates (a missing name is fine).
 */
export function validateEmbeddedResource(obj: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(obj, 'apiVersion')) errs.push(fieldRequired(childPath(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(obj, 'kind')) errs.push(fieldRequired(childPath(path, 'kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion') {
      const f = childPath(path, 'apiVersion');
      if (typeof v !== 'string') errs.push(invalidValue(f, v, 'must be a string'));
      else if (v === '') errs.push(invalidValue(f, v, 'must not be empty'));
      else {
        const err = groupVersionError(v);
        if (err) errs.push(invalidValue(f, v, err));
      }
    } else if (k === 'kind') {
      const f = childPath(path, 'kind');
      if (typeof v !== 'string') errs.push(invalidValue(f, v, 'must be a string'));
      else if (v === '') errs.push(invalidValue(f, v, 'must not be empty'));
      else {
        const label = isDNS1035Label(v.toLowerCase());
        if (label.length) errs.push(invalidValue(f, v, `may have mixed case, but should otherwise match: ${label.join(',')}`));
      }
    } else if (k === 'metadata') {
      const decoded = decodeObjectMeta(obj, path)!;
      if (decoded.error) errs.push(invalidValue(childPath(path, 'metadata'), v, decoded.error));
      else {
        const meta = { ...decoded.value };
        if (typeof meta['name'] !== 'string' || meta['name'] === '') meta['name'] = 'fakename';
        const namespaced = typeof meta['namespace'] === 'string' && meta['namespace'] !== '';
        for (const e of validateObjectMeta(meta, 'path', namespaced)) errs.push({ ...e, field: childPath(path, e.field) });
      }
    }
  }
  return errs;
}
