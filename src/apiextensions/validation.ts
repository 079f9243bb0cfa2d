// The validation of a CustomResourceDefinition (apiextensions.k8s.io/v1) as kube-apiserver 1.25
// gives it: the reference validates its internal form, into which a v1 object converts with
// `spec.version` set to the first version's name and per-version schemas, subresources and
// printer columns that are identical in every version moved to the top level — so errors in
// those name `spec.validation`, `spec.subresources` and `spec.additionalPrinterColumns`, and the
// webhook's client config `spec.conversion.webhookClientConfig`. The rules of the schema itself
// are the schema engine's.
import { type FieldError, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../api/names.js';
import { validateWebhookService, validateWebhookUrl } from '../api/validation/admissionregistration.js';
import { goStringSlice } from '../api/validation/go-syntax.js';
import { invalidRendered } from '../api/validation/helpers.js';
import { type JsonObject, isObject, jsonEqual } from '../json.js';
import { metadataOf } from '../registry/objects.js';
import { approvalState, isConditionTrue, isProtectedGroup, API_APPROVAL_ANNOTATION, namesOf, specOfCrd, statusOfCrd } from './crd-object.js';
import type { CrdSchemaEngine } from './schema-engine.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});
const objs = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);

/** The spec as the reference validates it: v1 converted to the internal form (see the top of this file). */
interface InternalSpec {
  versions: JsonObject[];
  /** Per-version fields moved to the top level (undefined: they stay per version). */
  validation?: JsonObject | null;
  subresources?: JsonObject | null;
  columns?: JsonObject[] | null;
}

function hoisted(versions: JsonObject[], field: string): { identical: boolean; value: unknown } {
  if (versions.length === 0) return { identical: false, value: undefined };
  const first = versions[0]![field];
  const identical = versions.every((v) => jsonEqual(v[field] ?? null, first ?? null));
  return { identical, value: first };
}

function internalSpec(spec: JsonObject): InternalSpec {
  const versions = objs(spec['versions']);
  const out: InternalSpec = { versions };
  const schema = hoisted(versions, 'schema');
  if (schema.identical) out.validation = isObject(schema.value) ? schema.value : null;
  const sub = hoisted(versions, 'subresources');
  if (sub.identical) out.subresources = isObject(sub.value) ? sub.value : null;
  const cols = hoisted(versions, 'additionalPrinterColumns');
  if (cols.identical) out.columns = Array.isArray(cols.value) ? objs(cols.value) : null;
  return out;
}

const joinErrors = (errs: string[]): string => errs.join(',');

function dns1035(value: string, field: string): FieldError[] {
  const errs = isDNS1035Label(value);
  return errs.length ? [fieldInvalid(field, value, joinErrors(errs))] : [];
}

/** Go's %#v of a version in the few errors that print one (its pointers as the reference prints them cannot be reproduced). */
function renderVersion(v: JsonObject): string {
  return `apiextensions.CustomResourceDefinitionVersion{Name:${JSON.stringify(str(v['name']))}, Served:${v['served'] === true}, Storage:${v['storage'] === true}, Deprecated:${v['deprecated'] === true}, ...}`;
}

const renderVersions = (vs: JsonObject[]): string => `[]apiextensions.CustomResourceDefinitionVersion{${vs.map(renderVersion).join(', ')}}`;

/** The names of spec.names or status.acceptedNames. */
export function validateNames(names: unknown, path: string): FieldError[] {
  const n = namesOf(names);
  const errs: FieldError[] = [];
  if (n.plural) errs.push(...dns1035(n.plural, `${path}.plural`));
  if (n.singular) errs.push(...dns1035(n.singular, `${path}.singular`));
  for (const [field, value] of [['kind', n.kind], ['listKind', n.listKind]] as const) {
    const problems = value ? isDNS1035Label(value.toLowerCase()) : [];
    if (problems.length) errs.push(fieldInvalid(`${path}.${field}`, value, `may have mixed case, but should otherwise match: ${joinErrors(problems)}`));
  }
  n.shortNames.forEach((s, i) => errs.push(...dns1035(s, `${path}.shortNames[${i}]`)));
  if (n.kind && n.kind === n.listKind) errs.push(fieldInvalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  n.categories.forEach((c, i) => errs.push(...dns1035(c, `${path}.categories[${i}]`)));
  return errs;
}

function simpleJsonPath(value: string, path: string): FieldError[] {
  if (value.length === 0) return [fieldInvalid(path, value, 'must not be empty')];
  if (value[0] !== '.') return [fieldInvalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(subresources: unknown, path: string): FieldError[] {
  if (!isObject(subresources) || !isObject(subresources['scale'])) return [];
  const scale = subresources['scale'];
  const errs: FieldError[] = [];
  const specPath = str(scale['specReplicasPath']);
  if (!specPath) errs.push(fieldRequired(`${path}.scale.specReplicasPath`));
  else {
    const e = simpleJsonPath(specPath, `${path}.scale.specReplicasPath`);
    if (e.length) errs.push(...e);
    else if (!specPath.startsWith('.spec.')) errs.push(fieldInvalid(`${path}.scale.specReplicasPath`, specPath, 'should be a json path under .spec'));
  }
  const statusPath = str(scale['statusReplicasPath']);
  if (!statusPath) errs.push(fieldRequired(`${path}.scale.statusReplicasPath`));
  else {
    const e = simpleJsonPath(statusPath, `${path}.scale.statusReplicasPath`);
    if (e.length) errs.push(...e);
    else if (!statusPath.startsWith('.status.')) errs.push(fieldInvalid(`${path}.scale.statusReplicasPath`, statusPath, 'should be a json path under .status'));
  }
  const selector = str(scale['labelSelectorPath']);
  if (selector) {
    const e = simpleJsonPath(selector, `${path}.scale.labelSelectorPath`);
    if (e.length) errs.push(...e);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) errs.push(fieldInvalid(`${path}.scale.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

function validateColumn(col: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(col['name'])) errs.push(fieldRequired(`${path}.name`));
  const type = str(col['type']);
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!type) errs.push(fieldRequired(`${path}.type`, types));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(fieldInvalid(`${path}.type`, type, types));
  const format = str(col['format']);
  if (format && !PRINTER_COLUMN_FORMATS.includes(format)) errs.push(fieldInvalid(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  // The internal field is JSONPath: the reference names it so.
  const jsonPath = str(col['jsonPath']);
  if (!jsonPath) errs.push(fieldRequired(`${path}.JSONPath`));
  else errs.push(...simpleJsonPath(jsonPath, `${path}.JSONPath`));
  return errs;
}

function deprecationWarningErrors(version: JsonObject): string[] {
  const warning = version['deprecationWarning'];
  if (version['deprecated'] !== true && warning !== undefined && warning !== null) return ['can only be set for deprecated versions'];
  if (typeof warning !== 'string') return [];
  const errs: string[] = [];
  if (warning.length > 256) errs.push('must be <= 256 characters long');
  if (warning.length === 0) errs.push('must not be an empty string');
  let i = 0;
  for (const ch of warning) {
    if (/\p{Cc}/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; control character found at index ${i}`);
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${i}`);
      break;
    }
    i += Buffer.byteLength(ch);
  }
  return errs;
}

/** Whether any schema of the spec has a default (walking the schema keywords that hold schemas). */
function hasDefaults(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (schema['default'] !== undefined) return true;
  const children: unknown[] = [schema['items'], schema['additionalProperties'], schema['not']];
  for (const k of ['properties', 'patternProperties', 'definitions']) if (isObject(schema[k])) children.push(...Object.values(schema[k]));
  for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[k])) children.push(...schema[k]);
  if (Array.isArray(schema['items'])) children.push(...schema['items']);
  return children.some(hasDefaults);
}

const schemaOf = (holder: unknown): JsonObject | undefined => {
  const s = obj(holder)['openAPIV3Schema'];
  return isObject(s) ? s : undefined;
};

function validateConversion(conversion: unknown, requireRecognized: boolean): FieldError[] {
  if (!isObject(conversion)) return [];
  const path = 'spec.conversion';
  const errs: FieldError[] = [];
  const strategy = str(conversion['strategy']);
  if (!strategy) errs.push(fieldRequired(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldNotSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = obj(conversion['webhook']);
  const clientConfig = webhook['clientConfig'];
  const reviewVersions = Array.isArray(webhook['conversionReviewVersions']) ? webhook['conversionReviewVersions'].map(str) : [];
  if (strategy === 'Webhook') {
    if (!isObject(clientConfig)) errs.push(fieldRequired(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else {
      const hasUrl = typeof clientConfig['url'] === 'string';
      const hasService = isObject(clientConfig['service']);
      if (hasUrl === hasService) errs.push(fieldRequired(`${path}.webhookClientConfig`, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...validateWebhookUrl(str(clientConfig['url']), `${path}.webhookClientConfig.url`));
      else errs.push(...validateWebhookService(obj(clientConfig['service']), `${path}.webhookClientConfig.service`));
    }
    const rvPath = `${path}.conversionReviewVersions`;
    if (reviewVersions.length === 0) errs.push(fieldRequired(rvPath));
    else {
      const seen = new Set<string>();
      let recognized = false;
      reviewVersions.forEach((v, i) => {
        if (seen.has(v)) {
          errs.push(fieldInvalid(`${rvPath}[${i}]`, v, 'duplicate version'));
          return;
        }
        seen.add(v);
        for (const e of isDNS1035Label(v)) errs.push(fieldInvalid(`${rvPath}[${i}]`, v, e));
        if (CONVERSION_REVIEW_VERSIONS.includes(v)) recognized = true;
      });
      if (requireRecognized && !recognized) errs.push(invalidRendered(rvPath, goStringSlice(reviewVersions), `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
    }
  } else {
    if (isObject(clientConfig)) errs.push(fieldForbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) errs.push(fieldForbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

interface SpecOptions {
  requireRecognizedConversionReviewVersion: boolean;
  /** The versions (by name) whose schema the old object had unchanged (update only). */
  unchangedSchemas?: ReadonlySet<string>;
}

function validateSpec(spec: JsonObject, engine: CrdSchemaEngine, options: SpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(spec['group']);
  if (!group) errs.push(fieldRequired('spec.group'));
  else if (isDNS1123Subdomain(group).length) errs.push(fieldInvalid('spec.group', group, joinErrors(isDNS1123Subdomain(group))));
  else if (group.split('.').length < 2) errs.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));

  const scope = str(spec['scope']);
  if (!scope) errs.push(fieldRequired('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldNotSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const internal = internalSpec(spec);
  const { versions } = internal;
  if (!internal.validation) {
    versions.forEach((v, i) => {
      if (!schemaOf(v['schema'])) errs.push(fieldRequired(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
  }
  const preserveUnknown = spec['preserveUnknownFields'] === true;
  const anyDefaults = internal.validation ? hasDefaults(schemaOf(internal.validation)) : versions.some((v) => hasDefaults(schemaOf(v['schema'])));
  if (anyDefaults && preserveUnknown) errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));

  const statusOn = (subresources: unknown) => isObject(obj(subresources)['status']);
  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    const name = str(v['name']);
    if (v['storage'] === true) storageCount++;
    if (names.has(name)) unique = false;
    names.add(name);
    errs.push(...dns1035(name, `${path}.name`));
    for (const e of deprecationWarningErrors(v)) errs.push(fieldInvalid(`${path}.deprecationWarning`, v['deprecationWarning'], e));
    if (internal.validation === undefined) {
      const schema = schemaOf(v['schema']);
      const subresources = internal.subresources === undefined ? v['subresources'] : internal.subresources;
      if (schema) errs.push(...engine.checkSchema(schema, `${path}.schema.openAPIV3Schema`, { statusSubresource: statusOn(subresources), unchanged: options.unchangedSchemas?.has(name) }));
    }
    if (internal.subresources === undefined) errs.push(...validateSubresources(v['subresources'], `${path}.subresources`));
    if (internal.columns === undefined) objs(v['additionalPrinterColumns']).forEach((c, j) => errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${j}]`)));
  });
  if (!unique) errs.push(invalidRendered('spec.versions', renderVersions(versions), 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalidRendered('spec.versions', renderVersions(versions), 'must have exactly one version marked as storage version'));
  // spec.version is the first version's name in the internal form.
  if (versions.length > 0) errs.push(...dns1035(str(versions[0]!['name']), 'spec.version'));

  const n = namesOf(spec['names']);
  if (!n.plural) errs.push(fieldRequired('spec.names.plural'));
  if (!n.singular) errs.push(fieldRequired('spec.names.singular'));
  if (!n.kind) errs.push(fieldRequired('spec.names.kind'));
  if (!n.listKind) errs.push(fieldRequired('spec.names.listKind'));
  errs.push(...validateNames(spec['names'], 'spec.names'));

  if (internal.validation) {
    const schema = schemaOf(internal.validation);
    const anyStatus = statusOn(internal.subresources === undefined ? undefined : internal.subresources) || versions.some((v) => statusOn(v['subresources']));
    if (schema) errs.push(...engine.checkSchema(schema, 'spec.validation.openAPIV3Schema', { statusSubresource: anyStatus, unchanged: versions.every((v) => options.unchangedSchemas?.has(str(v['name']))) }));
  }
  if (internal.subresources) errs.push(...validateSubresources(internal.subresources, 'spec.subresources'));
  if (internal.columns) internal.columns.forEach((c, j) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${j}]`)));

  const conversion = obj(spec['conversion']);
  if (preserveUnknown && isObject(spec['conversion']) && conversion['strategy'] !== 'None') {
    errs.push(fieldInvalid('spec.conversion.strategy', conversion['strategy'], 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(spec['conversion'], options.requireRecognizedConversionReviewVersion));
  return errs;
}

function validateStoredVersions(crd: JsonObject): FieldError[] {
  const path = 'status.storedVersions';
  const stored = Array.isArray(statusOfCrd(crd)['storedVersions']) ? (statusOfCrd(crd)['storedVersions'] as unknown[]).map(str) : [];
  if (stored.length === 0) return [invalidRendered(path, stored.length || Array.isArray(statusOfCrd(crd)['storedVersions']) ? '[]string{}' : '[]string(nil)', 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of objs(specOfCrd(crd)['versions'])) {
    const name = str(v['name']);
    if (v['storage'] === true && !remaining.has(name)) errs.push(invalidRendered(path, renderVersion(v), `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) errs.push(fieldInvalid(`${path}[${i}]`, v, 'must appear in spec.versions'));
  return errs;
}

function validateApproval(crd: JsonObject, old: JsonObject | undefined): FieldError[] {
  if (!isProtectedGroup(str(specOfCrd(crd)['group']))) return [];
  const now = approvalState(metadataOf(crd)['annotations']);
  if (old && approvalState(metadataOf(old)['annotations']).state === now.state) return [];
  const path = `metadata.annotations[${API_APPROVAL_ANNOTATION}]`;
  const value = str(obj(metadataOf(crd)['annotations'])[API_APPROVAL_ANNOTATION]);
  if (now.state === 'Missing') return [fieldRequired(path, now.reason)];
  if (now.state === 'Invalid') return [fieldInvalid(path, value, now.reason)];
  return [];
}

function validatePreserveUnknownFields(crd: JsonObject, old: JsonObject | undefined): FieldError[] {
  if (old && specOfCrd(old)['preserveUnknownFields'] === true) return [];
  if (specOfCrd(crd)['preserveUnknownFields'] === true) {
    return [fieldInvalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
  }
  return [];
}

/** metadata.name of a CRD: `<plural>.<group>` (beyond the DNS subdomain rule the store checks). */
function validateCrdName(crd: JsonObject): FieldError[] {
  const name = str(metadataOf(crd)['name']);
  const spec = specOfCrd(crd);
  const required = `${namesOf(spec['names']).plural}.${str(spec['group'])}`;
  return name !== required ? [fieldInvalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group')] : [];
}

/** The errors of a new CRD (after defaulting and the strategy's preparation). */
export function validateCrdCreate(crd: JsonObject, engine: CrdSchemaEngine): FieldError[] {
  return [
    ...validateCrdName(crd),
    ...validateSpec(specOfCrd(crd), engine, { requireRecognizedConversionReviewVersion: true }),
    ...validateNames(statusOfCrd(crd)['acceptedNames'], 'status.acceptedNames'),
    ...validateStoredVersions(crd),
    ...validateApproval(crd, undefined),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

function recognizedOrEmpty(old: JsonObject): boolean {
  const conversion = obj(specOfCrd(old)['conversion']);
  const versions = obj(conversion['webhook'])['conversionReviewVersions'];
  const list = Array.isArray(versions) ? versions.map(str) : [];
  return list.length === 0 || list.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v));
}

function immutable(value: unknown, old: unknown, path: string): FieldError[] {
  return jsonEqual(value ?? null, old ?? null) ? [] : [fieldInvalid(path, value ?? '', 'field is immutable')];
}

/** The errors of an update of a CRD's main resource. */
export function validateCrdUpdate(crd: JsonObject, old: JsonObject, engine: CrdSchemaEngine): FieldError[] {
  const spec = specOfCrd(crd);
  const oldSpec = specOfCrd(old);
  const oldVersions = new Map(objs(oldSpec['versions']).map((v) => [str(v['name']), v['schema']]));
  const unchangedSchemas = new Set(objs(spec['versions']).filter((v) => oldVersions.has(str(v['name'])) && jsonEqual(v['schema'], oldVersions.get(str(v['name'])))).map((v) => str(v['name'])));
  const errs = validateSpec(spec, engine, { requireRecognizedConversionReviewVersion: recognizedOrEmpty(old), unchangedSchemas });
  // Scope and kind decide how objects are stored: fixed once the CRD was established.
  if (isConditionTrue(old, 'Established')) {
    errs.push(...immutable(spec['scope'], oldSpec['scope'], 'spec.scope'));
    errs.push(...immutable(namesOf(spec['names']).kind, namesOf(oldSpec['names']).kind, 'spec.names.kind'));
  }
  errs.push(...immutable(spec['group'], oldSpec['group'], 'spec.group'));
  errs.push(...immutable(namesOf(spec['names']).plural, namesOf(oldSpec['names']).plural, 'spec.names.plural'));
  return [
    ...errs,
    ...validateNames(statusOfCrd(crd)['acceptedNames'], 'status.acceptedNames'),
    ...validateStoredVersions(crd),
    ...validateApproval(crd, old),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** The errors of a status write: the accepted names only. */
export function validateCrdStatusUpdate(crd: JsonObject): FieldError[] {
  return validateNames(statusOfCrd(crd)['acceptedNames'], 'status.acceptedNames');
}
