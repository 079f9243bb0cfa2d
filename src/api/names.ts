// Name, label and annotation validation with the reference's (kube-apiserver 1.25) messages.
// Lengths are counted in UTF-8 bytes, as the reference counts them.

import { FieldError, fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, goQuote } from '../errors.js';

/** One rule: a length limit, then a regex with its description and examples. */
interface Rule {
  max: number;
  re: RegExp;
  fmt: string;
  what: string;
  examples: string[];
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);

const RULES = {
  subdomain: {
    max: 253,
    re: anchored(DNS1123_SUBDOMAIN_FMT),
    fmt: DNS1123_SUBDOMAIN_FMT,
    what: "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    examples: ['example.com'],
  },
  label: {
    max: 63,
    re: anchored(DNS1123_LABEL_FMT),
    fmt: DNS1123_LABEL_FMT,
    what: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    examples: ['my-name', '123-abc'],
  },
  dns1035: {
    max: 63,
    re: anchored(DNS1035_LABEL_FMT),
    fmt: DNS1035_LABEL_FMT,
    what: "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
    examples: ['my-name', 'abc-123'],
  },
  qualifiedName: {
    max: 63,
    re: anchored(QUALIFIED_NAME_FMT),
    fmt: QUALIFIED_NAME_FMT,
    what: "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    examples: ['MyName', 'my.name', '123-abc'],
  },
  labelValue: {
    max: 63,
    re: anchored(LABEL_VALUE_FMT),
    fmt: LABEL_VALUE_FMT,
    what: "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    examples: ['MyValue', 'my_value', '12345'],
  },
} satisfies Record<string, Rule>;

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const EMPTY_ERROR = 'must be non-empty';

/** The reference's regex message: `what (e.g. 'a',  or 'b', regex used for validation is 'fmt')`. */
export function regexError(what: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${what} (regex used for validation is '${fmt}')`;
  const eg = examples.map((e) => `'${e}', `).join(' or ');
  return `${what} (e.g. ${eg}regex used for validation is '${fmt}')`;
}

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

function check(rule: Rule, value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > rule.max) errs.push(maxLenError(rule.max));
  if (!rule.re.test(value)) errs.push(regexError(rule.what, rule.fmt, ...rule.examples));
  return errs;
}

export const isDNS1123Subdomain = (value: string): string[] => check(RULES.subdomain, value);
export const isDNS1123Label = (value: string): string[] => check(RULES.label, value);
export const isDNS1035Label = (value: string): string[] => check(RULES.dns1035, value);
export const isValidLabelValue = (value: string): string[] => check(RULES.labelValue, value);

/** Path segment names (e.g. RBAC objects): not `.`/`..`, no `/` or `%`. `prefixOnly` skips the whole-name checks. */
export function isValidPathSegmentName(value: string, prefixOnly = false): string[] {
  const errs: string[] = [];
  if (!prefixOnly && (value === '.' || value === '..')) errs.push(`may not be '${value}'`);
  for (const bad of ['/', '%']) if (value.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** Label and annotation keys: `[prefix/]name`, prefix a DNS-1123 subdomain, name a 63-char qualified name. */
export function isQualifiedName(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    const { what, fmt, examples } = RULES.qualifiedName;
    return [`a qualified name ${regexError(what, fmt, ...examples)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const errs: string[] = [];
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  // An empty name part is reported twice, as the reference does: empty, and not matching the regex.
  if (name === '') errs.push(`name part ${EMPTY_ERROR}`);
  errs.push(...check(RULES.qualifiedName, name).map((m) => `name part ${m}`));
  return errs;
}

export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path';

/**
 * Errors for an object name under `rule`. `isGenerateNamePrefix` is true when `name` is a
 * `metadata.generateName` prefix: as in the reference, a trailing '-' is then tolerated (it is
 * masked the reference's way: the last two characters become 'a'). Names generated from a
 * prefix (prefix + random suffix) are validated as they are, with `false`.
 */
export function validateObjectName(rule: NameRule, name: string, isGenerateNamePrefix: boolean): string[] {
  if (rule === 'path') return isValidPathSegmentName(name, isGenerateNamePrefix);
  const value = isGenerateNamePrefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
  return check(RULES[rule], value);
}

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const invalidEach = (field: string, value: unknown, msgs: string[]): FieldError[] => msgs.map((m) => fieldInvalid(field, value, m));

function stringMap(field: string, v: unknown, errs: FieldError[]): Array<[string, string]> {
  if (v === undefined || v === null) return [];
  if (typeof v !== 'object' || Array.isArray(v)) {
    errs.push(fieldInvalid(field, v, 'must be an object of string values'));
    return [];
  }
  const out: Array<[string, string]> = [];
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') out.push([k, val]);
    else errs.push(fieldInvalid(`${field}[${k}]`, val, 'must be a string'));
  }
  return out;
}

/**
 * The reference's ObjectMeta checks for create/update, in its order: generateName, name,
 * namespace, labels, annotations. `namespaced` says whether the resource is namespaced: then
 * `metadata.namespace` is required and must be a DNS-1123 label (callers fill it from the URL
 * first); for cluster-scoped resources a namespace is forbidden (callers clear it first, as the
 * reference does).
 */
export function validateObjectMeta(meta: Record<string, unknown>, rule: NameRule, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const { name, generateName, namespace } = meta;

  if (typeof generateName === 'string' && generateName !== '') {
    errs.push(...invalidEach('metadata.generateName', generateName, validateObjectName(rule, generateName, true)));
  }
  if (name === undefined || name === null || name === '') errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else if (typeof name !== 'string') errs.push(fieldInvalid('metadata.name', name, 'must be a string'));
  else errs.push(...invalidEach('metadata.name', name, validateObjectName(rule, name, false)));

  const hasNamespace = typeof namespace === 'string' && namespace !== '';
  if (namespaced) {
    if (!hasNamespace) errs.push(fieldRequired('metadata.namespace'));
    else errs.push(...invalidEach('metadata.namespace', namespace, isDNS1123Label(namespace)));
  } else if (hasNamespace) {
    errs.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }

  if (typeof meta.generation === 'number' && meta.generation < 0) errs.push(fieldInvalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));

  errs.push(...validateLabels(meta.labels, 'metadata.labels'));

  let annotationBytes = 0;
  for (const [k, v] of stringMap('metadata.annotations', meta.annotations, errs)) {
    errs.push(...invalidEach('metadata.annotations', k, isQualifiedName(k.toLowerCase())));
    annotationBytes += byteLength(k) + byteLength(v);
  }
  if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldTooLong('metadata.annotations', TOTAL_ANNOTATION_SIZE_LIMIT));

  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return errs;
}

/** A label map (metadata.labels, selectors, node selectors): keys qualified names, values label values; errors on the map's path. */
export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of stringMap(field, labels, errs)) {
    errs.push(...invalidEach(field, k, isQualifiedName(k)));
    errs.push(...invalidEach(field, v, isValidLabelValue(v)));
  }
  return errs;
}

/** Finalizer names: qualified names, and not both orphan and foregroundDeletion (all types, custom ones too). */
export function validateFinalizers(finalizers: unknown, field: string): FieldError[] {
  if (!Array.isArray(finalizers)) return [];
  const names = finalizers.filter((f): f is string => typeof f === 'string');
  const errs: FieldError[] = [];
  for (const f of names) errs.push(...invalidEach(field, f, isQualifiedName(f)));
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    errs.push({ type: 'FieldValueInvalid', field, detail: `Invalid value: []string{${names.map((n) => JSON.stringify(n)).join(', ')}}: finalizer orphan and foregroundDeletion cannot be both set` });
  }
  return errs;
}

/**
 * An owner reference as Go's %#v prints the struct (the reference's error text for a banned
 * owner); a set pointer prints as an address in Go, here a fixed one.
 */
function goOwnerReference(r: Record<string, unknown>): string {
  const str = (k: string) => goQuote(typeof r[k] === 'string' ? (r[k] as string) : '');
  const ptr = (k: string) => (typeof r[k] === 'boolean' ? '(*bool)(0xc000010000)' : '(*bool)(nil)');
  return `v1.OwnerReference{APIVersion:${str('apiVersion')}, Kind:${str('kind')}, Name:${str('name')}, UID:${str('uid')}, Controller:${ptr('controller')}, BlockOwnerDeletion:${ptr('blockOwnerDeletion')}}`;
}

/** Owner references: apiVersion with a version, kind, name and uid; not a core Event; at most one controller. */
function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let controller = '';
  for (const ref of refs) {
    const r = (typeof ref === 'object' && ref !== null ? ref : {}) as Record<string, unknown>;
    const text = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : '');
    const apiVersion = text('apiVersion');
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (version === '') errs.push(fieldInvalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (text('kind') === '') errs.push(fieldInvalid(`${field}.kind`, text('kind'), 'kind must not be empty'));
    if (text('name') === '') errs.push(fieldInvalid(`${field}.name`, text('name'), 'name must not be empty'));
    if (text('uid') === '') errs.push(fieldInvalid(`${field}.uid`, text('uid'), 'uid must not be empty'));
    if (apiVersion === 'v1' && text('kind') === 'Event') {
      // The reference's BannedOwners: core/v1 Events (not events.k8s.io's) can own nothing.
      errs.push({ type: 'FieldValueInvalid', field, detail: `Invalid value: ${goOwnerReference(r)}: /v1, Kind=Event is disallowed from being an owner` });
    }
    if (r['controller'] === true) {
      if (controller !== '') {
        errs.push(fieldInvalid(field, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${text('name')}`));
      } else controller = text('name');
    }
  }
  return errs;
}
