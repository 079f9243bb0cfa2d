// ConfigMaps and Secrets: key names, the 1 MiB size limit, immutability, and the data each
// Secret type requires.
import { type FieldError, fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong } from '../../errors.js';
import { isConfigMapKey } from './core-env.js';
import { entries, immutable, invalidAll, key, obj, type Obj, str } from './helpers.js';
import { isObject } from '../../json.js';

export const MAX_SECRET_SIZE = 1024 * 1024;
const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

const base64Length = (v: unknown): number => Buffer.from(str(v), 'base64').length;

export function validateConfigMap(cm: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const binary = obj(cm['binaryData']);
  let size = 0;
  for (const [k, v] of entries(cm['data'])) {
    errs.push(...invalidAll(key('data', k), k, isConfigMapKey(k)));
    if (k in binary) errs.push(fieldInvalid(key('data', k), k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(str(v));
  }
  for (const [k, v] of entries(cm['binaryData'])) {
    errs.push(...invalidAll(key('binaryData', k), k, isConfigMapKey(k)));
    size += base64Length(v);
  }
  // The reference reports the whole object, on an empty path (printed "[]").
  if (size > MAX_SECRET_SIZE) errs.push(fieldTooLong('[]', MAX_SECRET_SIZE));
  return errs;
}

/** Maps compared as reflect.DeepEqual does: an absent map differs from an empty one. */
function sameMap(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return isObject(a) === isObject(b);
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && a[k] === b[k]);
}

function immutableContents(next: Obj, old: Obj, fields: string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  if (next['immutable'] !== true) errs.push(fieldForbidden('immutable', IMMUTABLE_SET));
  for (const f of fields) if (!sameMap(next[f], old[f])) errs.push(fieldForbidden(f, IMMUTABLE_SET));
  return errs;
}

export function validateConfigMapUpdate(cm: Obj, old: Obj): FieldError[] {
  return [...immutableContents(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)];
}

/** Keys each Secret type must carry. */
function validateSecretType(secret: Obj): FieldError[] {
  const data = obj(secret['data']);
  const annotations = obj(obj(secret['metadata'])['annotations']);
  const has = (k: string) => k in data;
  switch (str(secret['type'])) {
    case 'kubernetes.io/service-account-token':
      return str(annotations['kubernetes.io/service-account.name']) === '' ? [fieldRequired(key('metadata.annotations', 'kubernetes.io/service-account.name'))] : [];
    case 'kubernetes.io/dockercfg':
      if (!has('.dockercfg')) return [fieldRequired(key('data', '.dockercfg'))];
      return jsonObjectErrors(data['.dockercfg'], key('data', '.dockercfg'));
    case 'kubernetes.io/dockerconfigjson':
      if (!has('.dockerconfigjson')) return [fieldRequired(key('data', '.dockerconfigjson'))];
      return jsonObjectErrors(data['.dockerconfigjson'], key('data', '.dockerconfigjson'));
    case 'kubernetes.io/basic-auth':
      return !has('username') && !has('password') ? [fieldRequired(key('data', 'username')), fieldRequired(key('data', 'password'))] : [];
    case 'kubernetes.io/ssh-auth':
      return base64Length(data['ssh-privatekey']) === 0 ? [fieldRequired(key('data', 'ssh-privatekey'))] : [];
    case 'kubernetes.io/tls':
      return [...(has('tls.crt') ? [] : [fieldRequired(key('data', 'tls.crt'))]), ...(has('tls.key') ? [] : [fieldRequired(key('data', 'tls.key'))])];
    default:
      return [];
  }
}

/** Docker config data must decode as a JSON object (Go's encoding/json messages, for the common cases). */
function jsonObjectErrors(value: unknown, field: string): FieldError[] {
  const text = Buffer.from(str(value), 'base64').toString('utf8');
  let why: string | undefined;
  if (text.trim() === '') why = 'unexpected end of JSON input';
  else {
    try {
      const parsed: unknown = JSON.parse(text);
      if (!isObject(parsed) && parsed !== null) {
        const type = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
        why = `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
      }
    } catch {
      const first = text.trim().charAt(0);
      why = `invalid character '${first}' looking for beginning of value`;
    }
  }
  return why ? [fieldInvalid(field, '<secret contents redacted>', why)] : [];
}

export function validateSecret(secret: Obj): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries(secret['data'])) {
    errs.push(...invalidAll(key('data', k), k, isConfigMapKey(k)));
    size += base64Length(v);
  }
  if (size > MAX_SECRET_SIZE) errs.push(fieldTooLong('data', MAX_SECRET_SIZE));
  errs.push(...validateSecretType(secret));
  return errs;
}

export function validateSecretUpdate(secret: Obj, old: Obj): FieldError[] {
  // type is defaulted to Opaque.
  return [
    ...immutable(str(secret['type']) || 'Opaque', str(old['type']) || 'Opaque', 'type'),
    ...immutableContents(secret, old, ['data']),
    ...validateSecret(secret),
  ];
}
