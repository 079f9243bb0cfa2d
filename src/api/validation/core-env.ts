// Container environment: variable names, valueFrom sources (downward API field and resource
// selectors, config map and secret keys), envFrom sources; config keys.
import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isQualifiedName, regexError } from '../names.js';
import { child, index, invalidAll, objs, type Obj, present, str, subdomainName } from './helpers.js';
import { isObject } from '../../json.js';

const ENV_VAR_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_VAR_RE = new RegExp(`^${ENV_VAR_FMT}$`);
const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_RE = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** `.`, `..` and `..`-prefixed names would escape a directory. */
function chdirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_RE.test(value)) {
    errs.push(regexError('a valid environment variable name must consist of alphabetic characters, digits, \'_\', \'-\', or \'.\', and must not start with a digit', ENV_VAR_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  }
  return [...errs, ...chdirPrefix(value)];
}

/** ConfigMap and Secret keys (also env sources and key selectors). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!CONFIG_KEY_RE.test(value)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  return [...errs, ...chdirPrefix(value)];
}

// Downward API paths the reference accepts, and those ConvertDownwardAPIFieldLabel knows.
const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.podIP', 'status.podIPs'];
export const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.restartPolicy',
  'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP', 'status.podIP', 'status.podIPs',
]);
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

/** An ObjectFieldSelector (fieldRef) against the paths allowed in this context. */
export function validateObjectFieldSelector(ref: Obj, allowed: string[], field: string): FieldError[] {
  // apiVersion is defaulted ("v1") when absent.
  if (present(ref['apiVersion']) && str(ref['apiVersion']) === '') return [fieldRequired(child(field, 'apiVersion'))];
  const fieldPath = str(ref['fieldPath']);
  if (fieldPath === '') return [fieldRequired(child(field, 'fieldPath'))];
  const apiVersion = str(ref['apiVersion']) || 'v1';
  if (apiVersion !== 'v1') return [fieldInvalid(child(field, 'fieldPath'), fieldPath, `error converting fieldPath: unsupported pod version: ${apiVersion}`)];
  const subscript = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fieldPath);
  if (subscript) {
    const name = subscript[1] === 'metadata.annotations' ? subscript[2]!.toLowerCase() : subscript[2]!;
    return invalidAll(field, name, isQualifiedName(name));
  }
  if (!CONVERTIBLE_FIELD_PATHS.has(fieldPath)) return [fieldInvalid(child(field, 'fieldPath'), fieldPath, `error converting fieldPath: field label not supported: ${fieldPath}`)];
  if (!allowed.includes(fieldPath)) return [fieldNotSupported(child(field, 'fieldPath'), fieldPath, allowed)];
  return [];
}

/** A resourceFieldRef: container name (required in volumes), a supported resource. */
export function validateResourceFieldSelector(ref: Obj, field: string, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (volume && str(ref['containerName']) === '') errs.push(fieldRequired(child(field, 'containerName')));
  const resource = str(ref['resource']);
  if (resource === '') errs.push(fieldRequired(child(field, 'resource')));
  else if (!RESOURCE_FIELD_PATHS.includes(resource) && !/^(limits|requests)\.hugepages-/.test(resource)) errs.push(fieldNotSupported(child(field, 'resource'), resource, RESOURCE_FIELD_PATHS));
  return errs;
}

function validateKeySelector(ref: Obj, field: string): FieldError[] {
  const errs = subdomainName(str(ref['name']), child(field, 'name'));
  const k = str(ref['key']);
  if (k === '') errs.push(fieldRequired(child(field, 'key')));
  else errs.push(...invalidAll(child(field, 'key'), k, isConfigMapKey(k)));
  return errs;
}

export function validateEnv(env: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(env).forEach((ev, i) => {
    const path = index(field, i);
    const name = str(ev['name']);
    if (name === '') errs.push(fieldRequired(child(path, 'name')));
    else errs.push(...invalidAll(child(path, 'name'), name, isEnvVarName(name)));
    if (!isObject(ev['valueFrom'])) return;
    const from = ev['valueFrom'];
    const fromPath = child(path, 'valueFrom');
    let sources = 0;
    if (isObject(from['fieldRef'])) {
      sources++;
      errs.push(...validateObjectFieldSelector(from['fieldRef'], ENV_FIELD_PATHS, child(fromPath, 'fieldRef')));
    }
    if (isObject(from['resourceFieldRef'])) {
      sources++;
      errs.push(...validateResourceFieldSelector(from['resourceFieldRef'], child(fromPath, 'resourceFieldRef'), false));
    }
    if (isObject(from['configMapKeyRef'])) {
      sources++;
      errs.push(...validateKeySelector(from['configMapKeyRef'], child(fromPath, 'configMapKeyRef')));
    }
    if (isObject(from['secretKeyRef'])) {
      sources++;
      errs.push(...validateKeySelector(from['secretKeyRef'], child(fromPath, 'secretKeyRef')));
    }
    if (sources === 0) errs.push(fieldInvalid(fromPath, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (str(ev['value']) !== '') errs.push(fieldInvalid(fromPath, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(fieldInvalid(fromPath, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

export function validateEnvFrom(envFrom: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(envFrom).forEach((ev, i) => {
    const path = index(field, i);
    const prefix = str(ev['prefix']);
    if (prefix !== '') errs.push(...invalidAll(child(path, 'prefix'), prefix, isEnvVarName(prefix)));
    let sources = 0;
    for (const source of ['configMapRef', 'secretRef']) {
      if (!isObject(ev[source])) continue;
      sources++;
      const name = str(ev[source]['name']);
      if (name === '') errs.push(fieldRequired(child(path, source, 'name')));
      else errs.push(...subdomainName(name, child(path, source, 'name'), true));
    }
    if (sources === 0) errs.push(fieldInvalid(field, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(fieldInvalid(field, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}
