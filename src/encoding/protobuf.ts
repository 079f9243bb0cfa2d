// Protobuf request bodies (application/vnd.kubernetes.protobuf) → plain JSON objects.
//
// Wire format: the 4-byte magic "k8s\0", then a runtime.Unknown {typeMeta{apiVersion, kind}, raw,
// contentEncoding, contentType}; raw is the object's message from the vendored generated.proto
// files (data/k8s-1.25/proto/k8s.io/…), decoded with protobufjs (loaded lazily, once).
//
// JSON mapping (what Go's encoding/json would show for the decoded Go struct):
// - keys are the proto field names (= the json tags), except JSONSchemaProps' ref/schema → $ref/$schema
//   and xKubernetesFoo → x-kubernetes-foo;
// - Go's generated Marshal writes every non-pointer scalar, even when zero, so presence on the wire
//   says nothing for those: zero scalars ("", 0, false, empty bytes) are dropped (omitempty), except for
//   fields known to be pointers in Go (POINTER_FIELDS), where a present zero is meaningful
//   (replicas: 0, immutable: false, storageClassName: "", …); empty repeated fields and maps are dropped;
//   a present sub-message stays, even if empty ({}), as Go prints non-pointer structs;
// - meta.v1.Time → "2006-01-02T15:04:05Z" (zero time dropped), MicroTime → 6 fractional digits,
//   Duration → Go duration string, Quantity → its string, IntOrString → number|string,
//   RawExtension / FieldsV1 / apiextensions JSON → the JSON value of raw, bytes → base64,
//   int64 → number, Verbs / ExtraValue → string arrays, JSONSchemaPropsOr{Array,Bool,StringArray} →
//   their union value.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as protobuf from 'protobufjs';
import { dataDir, readDataJson } from '../api/data.js';
import { badRequest, StatusError } from '../errors.js';
import { jsonDepthError, MAX_JSON_DEPTH, nestingTooDeep, valueDepth } from './depth.js';

type Protobufjs = typeof protobuf;
let protobufjs: Protobufjs | undefined;

/**
 * protobufjs, loaded with the first Protobuf body read or written (most clients speak JSON only).
 * Synchronously, as the proto files are: it is CommonJS, so this is the very object an import gives.
 */
export function protobufLibrary(): Protobufjs {
  return (protobufjs ??= createRequire(import.meta.url)('protobufjs') as Protobufjs);
}

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The media type of Kubernetes Protobuf bodies and answers. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

export interface DecodedProtobufObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Proto package segment (k8s.io.api.<segment>.<version>) → API group, where they differ. */
const GROUP_OF_SEGMENT: Record<string, string> = {
  core: '',
  admission: 'admission.k8s.io',
  admissionregistration: 'admissionregistration.k8s.io',
  apiserverinternal: 'internal.apiserver.k8s.io',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  imagepolicy: 'imagepolicy.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  rbac: 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
  // apps, autoscaling, batch, extensions, policy: the segment is the group.
};

/** Packages outside k8s.io.api.* that hold API groups. */
const OTHER_PACKAGES: Record<string, string> = {
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1': 'apiextensions.k8s.io/v1',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1beta1': 'apiextensions.k8s.io/v1beta1',
  'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1': 'apiregistration.k8s.io/v1',
  'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1beta1': 'apiregistration.k8s.io/v1beta1',
  [META]: 'meta.k8s.io/v1',
  'k8s.io.apimachinery.pkg.apis.meta.v1beta1': 'meta.k8s.io/v1beta1',
};

/**
 * Fields that are pointers in Go (a present zero value is kept). Keyed by field name, or
 * "Message.field" where the name is a pointer in one message only.
 */
export const POINTER_FIELDS = new Set<string>([
  // bool pointers
  'immutable', 'automountServiceAccountToken', 'enableServiceLinks', 'shareProcessNamespace', 'hostUsers',
  'setHostnameAsFQDN', 'privileged', 'allowPrivilegeEscalation', 'readOnlyRootFilesystem', 'runAsNonRoot',
  'controller', 'blockOwnerDeletion', 'suspend', 'manualSelector', 'allocateLoadBalancerNodePorts',
  'ready', 'serving', 'terminating', 'optional', 'allowVolumeExpansion', 'attachRequired', 'podInfoOnMount',
  'storageCapacity', 'requiresRepublish', 'xKubernetesPreserveUnknownFields', 'CSIVolumeSource.readOnly',
  'preserveUnknownFields', 'allowed', 'started',
  // integer pointers
  'replicas', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'deletionGracePeriodSeconds',
  'revisionHistoryLimit', 'progressDeadlineSeconds', 'parallelism', 'completions', 'backoffLimit',
  'ttlSecondsAfterFinished', 'startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit',
  'runAsUser', 'runAsGroup', 'fsGroup', 'defaultMode', 'mode', 'priority', 'expirationSeconds', 'minReplicas',
  'targetCPUUtilizationPercentage', 'partition', 'leaseDurationSeconds', 'leaseTransitions', 'PriorityClass.value',
  'healthCheckNodePort', 'gracePeriodSeconds', 'timeoutSeconds', 'stabilizationWindowSeconds', 'minDomains',
  'port', 'collisionCount', 'tolerationSeconds', 'maxItems', 'minItems', 'maxLength', 'minLength',
  'maxProperties', 'minProperties', 'maximum', 'minimum', 'multipleOf',
  // string pointers ("" is meaningful)
  'storageClassName', 'volumeMode', 'ingressClassName', 'preemptionPolicy', 'runtimeClassName', 'loadBalancerClass',
  'internalTrafficPolicy', 'ipFamilyPolicy', 'appProtocol', 'sideEffects', 'matchPolicy', 'failurePolicy',
  'reinvocationPolicy', 'scope', 'selectPolicy', 'fsGroupChangePolicy', 'pathType',
  'Endpoint.hostname', 'Endpoint.nodeName', 'Endpoint.zone', 'EndpointAddress.nodeName', 'LeaseSpec.holderIdentity',
  // DeleteOptions: a present false or "" says something (orphanDependents: false is Background)
  'DeleteOptions.orphanDependents', 'DeleteOptions.propagationPolicy', 'Preconditions.uid', 'Preconditions.resourceVersion',
]);

/**
 * Plain Go fields (omitempty: a zero is not shown) whatever the names above say: Probe's integers
 * (0 means "default"), and fields a client's typed object always puts on the wire, zero or not —
 * kept, they would show in the stored object and its managedFields where a JSON body has none.
 */
/** The scalar pointers of the Go types (`*string`, `*HostPathType`: a present zero is a value), from scripts/extract-go-zero-fields.mjs. */
let goScalarPointers: Set<string> | undefined;
export function isGoScalarPointer(type: protobuf.Type, field: protobuf.Field): boolean {
  goScalarPointers ??= new Set(readDataJson<{ pointers: string[] }>('go-nil-fields-1.25.json').pointers);
  return goScalarPointers.has(`${type.parent?.fullName.slice(1) ?? ''}.${type.name}.${field.name}`);
}

export const NOT_POINTER = new Set<string>([
  'Probe.timeoutSeconds', 'ServicePort.port', 'ContainerPort.containerPort',
  'ServiceSpec.healthCheckNodePort', 'PersistentVolumeSpec.storageClassName', 'CSIPersistentVolumeSource.readOnly',
  'CustomResourceDefinitionSpec.preserveUnknownFields', 'CustomResourceColumnDefinition.priority',
  'ScaleSpec.replicas', 'DeploymentStatus.replicas', 'IngressClassSpec.controller', 'StatusDetails.retryAfterSeconds',
  'PodSecurityPolicySpec.privileged', 'PodSecurityPolicySpec.readOnlyRootFilesystem',
]);

interface Registry {
  root: protobuf.Root;
  /** apiVersion ("v1", "apps/v1", …) → proto package. */
  packages: Map<string, string>;
  unknown: protobuf.Type;
  loadMs: number;
}

let registry: Registry | undefined;

function protoDir(): string {
  return join(dataDir, 'k8s-1.25', 'proto');
}

function findProtoFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...findProtoFiles(dir, path));
    else if (entry.name.endsWith('.proto')) out.push(path);
  }
  return out;
}

function apiVersionOfPackage(pkg: string): string | undefined {
  if (OTHER_PACKAGES[pkg] !== undefined) return OTHER_PACKAGES[pkg];
  const m = /^k8s\.io\.api\.([a-z0-9]+)\.(v[a-z0-9]+)$/.exec(pkg);
  if (!m) return undefined;
  const [, segment, version] = m as unknown as [string, string, string];
  const group = GROUP_OF_SEGMENT[segment] ?? segment;
  return group ? `${group}/${version}` : version;
}

/** Loads the proto root on first use (once). */
export function protobufRegistry(): Registry {
  if (registry) return registry;
  const started = performance.now();
  const dir = protoDir();
  const files = findProtoFiles(dir);
  const root = new (protobufLibrary().Root)();
  root.resolvePath = (_origin: string, target: string) => (target.startsWith('/') ? target : join(dir, target));
  root.loadSync(files.map((f) => join(dir, f)), { keepCase: true });
  root.resolveAll();
  const packages = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const pkg = /^package\s+([\w.]+);/m.exec(text)?.[1];
    if (!pkg) continue;
    const apiVersion = apiVersionOfPackage(pkg);
    if (apiVersion !== undefined) packages.set(apiVersion, pkg);
  }
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  registry = { root, packages, unknown, loadMs: performance.now() - started };
  return registry;
}

/** Milliseconds the proto root took to load, or undefined when not loaded yet. */
export function protobufLoadMs(): number | undefined {
  return registry?.loadMs;
}

function hexExcerpt(body: Buffer): string {
  return body.length > 30 ? `${body.subarray(0, 30).toString('hex')} ...` : body.toString('hex');
}

function unrecognized(expectedKind: string | undefined, why: string): StatusError {
  const prefix = expectedKind ? `the object provided is unrecognized (must be of type ${expectedKind})` : 'the object provided is unrecognized';
  return badRequest(`${prefix}: ${why}`);
}

/** The message type for (apiVersion, kind), or undefined. Meta kinds (Status, DeleteOptions, …) are in every group version. */
export function protobufTypeFor(apiVersion: string, kind: string): protobuf.Type | undefined {
  const { root, packages } = protobufRegistry();
  const pkg = packages.get(apiVersion);
  if (pkg === undefined || !/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) return undefined;
  for (const candidate of [pkg, META]) {
    const found = root.lookup(`${candidate}.${kind}`);
    if (found instanceof protobufLibrary().Type) return found;
  }
  return undefined;
}

export interface ProtobufEnvelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
  contentType: string;
}

/** The same bytes as a Buffer, not copied: a copy per level of Protobuf held in a RawExtension would cost the square of the body. */
function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * How many Protobuf objects are being decoded one inside another (RawExtensions holding
 * Protobuf): each adds two levels to the value, so past half the engines' bound it is refused
 * before going deeper.
 */
let embeddedDecodes = 0;
const MAX_EMBEDDED_DECODES = MAX_JSON_DEPTH / 2;

/** Checks the magic and decodes the runtime.Unknown envelope (kind may be empty, e.g. for a WatchEvent). */
export function decodeProtobufEnvelope(body: Buffer, expectedKind?: string): ProtobufEnvelope {
  if (body.length < 4 || !body.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    throw unrecognized(expectedKind, `provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (${hexExcerpt(body)})`);
  }
  let envelope: Record<string, unknown>;
  try {
    envelope = protobufRegistry().unknown.decode(body.subarray(4)) as unknown as Record<string, unknown>;
  } catch {
    throw unrecognized(expectedKind, `unexpected EOF (${hexExcerpt(body)})`);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as Record<string, unknown>;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    apiVersion: str(typeMeta.apiVersion),
    kind: str(typeMeta.kind),
    raw: envelope.raw instanceof Uint8Array ? bufferView(envelope.raw) : Buffer.alloc(0),
    contentEncoding: str(envelope.contentEncoding),
    contentType: str(envelope.contentType),
  };
}

/**
 * Decodes a Kubernetes protobuf body. `expectedKind` (optional) only shapes error messages the way the
 * reference words them ("the object provided is unrecognized (must be of type ConfigMap): …").
 */
export function decodeProtobufObject(body: Buffer, expectedKind?: string): DecodedProtobufObject {
  const { apiVersion, kind, raw, contentType, contentEncoding } = decodeProtobufEnvelope(body, expectedKind);
  if (!kind) throw unrecognized(expectedKind, `Object 'Kind' is missing in '${hexExcerpt(body)}'`);
  if (contentEncoding) throw unrecognized(expectedKind, `unsupported contentEncoding "${contentEncoding}"`);
  let fields: Record<string, unknown>;
  if (contentType === 'application/json') {
    let parsed: unknown;
    const tooDeep = jsonDepthError(raw.toString('utf8'));
    if (tooDeep) throw unrecognized(expectedKind, tooDeep);
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw unrecognized(expectedKind, 'raw JSON in the protobuf envelope is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw unrecognized(expectedKind, 'raw JSON in the protobuf envelope is not an object');
    fields = parsed as Record<string, unknown>;
  } else {
    if (contentType && contentType !== PROTOBUF_MEDIA_TYPE) {
      throw unrecognized(expectedKind, `unsupported contentType "${contentType}" in the protobuf envelope`);
    }
    fields = decodeProtobufRaw(apiVersion, kind, raw, expectedKind, body);
  }
  const object: Record<string, unknown> = {};
  if (kind) object.kind = kind;
  if (apiVersion) object.apiVersion = apiVersion;
  for (const [k, v] of Object.entries(fields)) if (k !== 'kind' && k !== 'apiVersion') object[k] = v;
  return { apiVersion, kind, object };
}

/**
 * Decodes the raw message of (apiVersion, kind) — the `raw` of a runtime.Unknown, without magic or
 * envelope — into its JSON fields (no kind/apiVersion added).
 */
export function decodeProtobufRaw(apiVersion: string, kind: string, raw: Uint8Array, expectedKind?: string, body: Uint8Array = raw): Record<string, unknown> {
  const type = protobufTypeFor(apiVersion, kind);
  if (!type) throw unrecognized(expectedKind, `no kind "${kind}" is registered for version "${apiVersion}" in the protobuf encoding`);
  let message: protobuf.Message;
  try {
    message = type.decode(raw);
  } catch {
    // (protobufjs itself refuses messages nested more than 100 deep: JSONSchemaProps in JSONSchemaProps.)
    throw unrecognized(expectedKind, `unexpected EOF (${hexExcerpt(Buffer.from(body))})`);
  }
  let fields: Record<string, unknown>;
  try {
    fields = messageToJson(type, message as unknown as Record<string, unknown>);
  } catch (err) {
    // The stack is the last bound on what one decoder nests inside another.
    if (err instanceof RangeError) throw unrecognized(expectedKind, nestingTooDeep(MAX_JSON_DEPTH));
    throw err;
  }
  // Protobuf and JSON held in RawExtensions may together nest deeper than the engines (which recurse) take.
  if (valueDepth(fields) > MAX_JSON_DEPTH) throw unrecognized(expectedKind, nestingTooDeep(MAX_JSON_DEPTH));
  return fields;
}

// ---- message → JSON ----

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && typeof (v as { toNumber?: unknown }).toNumber === 'function') {
    return (v as { toNumber(): number }).toNumber();
  }
  return Number(v);
}

function isZero(v: unknown): boolean {
  if (v === '' || v === false || v === undefined || v === null) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  return toNumber(v) === 0 && typeof v !== 'string';
}

/** Go embedded structs (`json:",inline"`): their fields are merged into the parent object. */
export const INLINE_FIELDS = new Set<string>([
  'Volume.volumeSource', 'PersistentVolumeSpec.persistentVolumeSource', 'Probe.handler',
  'EphemeralContainer.ephemeralContainerCommon', 'IngressRule.ingressRuleValue', 'RuleWithOperations.rule',
  'ConfigMapKeySelector.localObjectReference', 'SecretKeySelector.localObjectReference',
  'ConfigMapEnvSource.localObjectReference', 'SecretEnvSource.localObjectReference',
  'ConfigMapVolumeSource.localObjectReference', 'ConfigMapProjection.localObjectReference',
  'SecretProjection.localObjectReference',
]);

/** Proto field names that are not the JSON names (go-to-protobuf lower-cased only the first letter). */
const JSON_NAMES: Record<string, string> = { aPIGroup: 'apiGroup', uID: 'uid', Webhooks: 'webhooks' };

export function jsonName(message: string, field: string): string {
  const renamed = JSON_NAMES[field];
  if (renamed !== undefined) return renamed;
  if (message === 'JSONSchemaProps') {
    if (field === 'ref') return '$ref';
    if (field === 'schema') return '$schema';
    if (field.startsWith('xKubernetes')) return 'x-kubernetes' + field.slice('xKubernetes'.length).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  }
  return field;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function formatTime(seconds: number, nanos: number, fractionDigits: number): string {
  const d = new Date(seconds * 1000);
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  if (fractionDigits === 0) return `${base}Z`;
  return `${base}.${pad(Math.floor(nanos / 10 ** (9 - fractionDigits)), fractionDigits)}Z`;
}

/** Go's time.Duration.String(). */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  const fraction = (value: bigint, digits: number): string => {
    // value / 10^digits with trailing zeros trimmed
    const scale = 10n ** BigInt(digits);
    const whole = value / scale;
    let frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
    return frac ? `${whole}.${frac}` : `${whole}`;
  };
  let out: string;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) out = `${u}ns`;
    else if (u < 1_000_000n) out = `${fraction(u, 3)}µs`;
    else out = `${fraction(u, 6)}ms`;
  } else {
    const secondsPart = fraction(u % 60_000_000_000n, 9);
    u /= 60_000_000_000n; // minutes
    out = `${secondsPart}s`;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

function parseRaw(raw: unknown): unknown {
  const bytes = raw instanceof Uint8Array ? bufferView(raw) : Buffer.alloc(0);
  if (bytes.length === 0) return undefined;
  if (bytes.length >= 4 && bytes.subarray(0, 4).equals(PROTOBUF_MAGIC)) {
    if (embeddedDecodes >= MAX_EMBEDDED_DECODES) throw unrecognized(undefined, nestingTooDeep(MAX_JSON_DEPTH));
    embeddedDecodes++;
    try {
      return decodeProtobufObject(bytes).object;
    } finally {
      embeddedDecodes--;
    }
  }
  const text = bytes.toString('utf8');
  // Embedded JSON (a RawExtension, a JSON field) is bounded as a JSON body is, before it is built.
  const tooDeep = jsonDepthError(text);
  if (tooDeep) throw unrecognized(undefined, tooDeep);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function bigintOf(v: unknown): bigint {
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
    const l = v as { low: number; high: number };
    return (BigInt(l.high) << 32n) | BigInt(l.low >>> 0);
  }
  return BigInt(String(v ?? 0));
}

/** Special types: the JSON value, or `undefined` for "treat as absent". `null` = not special. */
function specialValue(type: protobuf.Type, msg: Record<string, unknown>): { value: unknown } | null {
  const full = type.fullName.replace(/^\./, '');
  switch (full) {
    case `${META}.Time`: {
      const seconds = toNumber(msg.seconds ?? 0);
      const nanos = toNumber(msg.nanos ?? 0);
      return { value: seconds === 0 && nanos === 0 ? undefined : formatTime(seconds, nanos, 0) };
    }
    case `${META}.MicroTime`: {
      const seconds = toNumber(msg.seconds ?? 0);
      const nanos = toNumber(msg.nanos ?? 0);
      return { value: seconds === 0 && nanos === 0 ? undefined : formatTime(seconds, nanos, 6) };
    }
    case `${META}.Duration`:
      return { value: formatGoDuration(bigintOf(msg.duration ?? 0)) };
    case `${META}.FieldsV1`:
      return { value: parseRaw(msg.Raw) };
    case `${META}.Verbs`:
      return { value: Array.isArray(msg.items) ? [...(msg.items as string[])] : [] };
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
    case 'k8s.io.apimachinery.pkg.api.resource.QuantityValue':
      return { value: typeof msg.string === 'string' && msg.string !== '' ? msg.string : undefined };
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return { value: toNumber(msg.type ?? 0) === 1 ? (msg.strVal ?? '') : toNumber(msg.intVal ?? 0) };
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
      return { value: parseRaw(msg.raw) };
  }
  const name = type.name;
  if (name === 'ExtraValue' && type.fieldsArray.length === 1) {
    return { value: Array.isArray(msg.items) ? [...(msg.items as string[])] : [] };
  }
  if (full.startsWith('k8s.io.apiextensions_apiserver.')) {
    if (name === 'JSON') return { value: parseRaw(msg.raw) };
    if (name === 'JSONSchemaPropsOrArray') {
      const schemaType = type.fields.schema!.resolvedType as protobuf.Type;
      if (msg.schema) return { value: messageToJson(schemaType, msg.schema as Record<string, unknown>) };
      return { value: ((msg.jSONSchemas as Record<string, unknown>[] | undefined) ?? []).map((s) => messageToJson(schemaType, s)) };
    }
    if (name === 'JSONSchemaPropsOrBool') {
      const schemaType = type.fields.schema!.resolvedType as protobuf.Type;
      if (msg.schema) return { value: messageToJson(schemaType, msg.schema as Record<string, unknown>) };
      return { value: msg.allows === true };
    }
    if (name === 'JSONSchemaPropsOrStringArray') {
      const schemaType = type.fields.schema!.resolvedType as protobuf.Type;
      if (msg.schema) return { value: messageToJson(schemaType, msg.schema as Record<string, unknown>) };
      return { value: [...((msg.property as string[] | undefined) ?? [])] };
    }
  }
  return null;
}

function convertValue(field: protobuf.Field, v: unknown): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobufLibrary().Type) return messageJson(resolved, v as Record<string, unknown>);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (typeof v === 'object' && v !== null) return toNumber(v); // Long
  return v;
}

function messageJson(type: protobuf.Type, msg: Record<string, unknown>): unknown {
  const special = specialValue(type, msg);
  return special ? special.value : messageToJson(type, msg);
}

export function messageToJson(type: protobuf.Type, msg: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Declaration order: generated.proto lists fields in the Go struct's order, which is the order
  // the reference writes JSON in (the numbers follow when each field was added).
  for (const field of type.fieldsArray) {
    if (!Object.prototype.hasOwnProperty.call(msg, field.name)) continue;
    const v = msg[field.name];
    if (v === undefined || v === null) continue;
    const key = jsonName(type.name, field.name);
    if (field instanceof protobufLibrary().MapField || field.map) {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) continue;
      const obj: Record<string, unknown> = {};
      for (const [k, item] of entries) obj[k] = convertValue(field, item) ?? null; // e.g. a zero Time → null
      out[key] = obj;
      continue;
    }
    if (field.repeated) {
      const arr = v as unknown[];
      if (!Array.isArray(arr) || arr.length === 0) continue;
      out[key] = arr.map((item) => convertValue(field, item));
      continue;
    }
    if (field.resolvedType instanceof protobufLibrary().Type) {
      const value = messageJson(field.resolvedType, v as Record<string, unknown>);
      if (INLINE_FIELDS.has(`${type.name}.${field.name}`) && typeof value === 'object' && value !== null) {
        Object.assign(out, value);
      } else if (value !== undefined) {
        out[key] = value;
      }
      continue;
    }
    if (isZero(v)) {
      const qualified = `${type.name}.${field.name}`;
      const pointer = !NOT_POINTER.has(qualified) && (POINTER_FIELDS.has(qualified) || POINTER_FIELDS.has(field.name) || isGoScalarPointer(type, field));
      if (!pointer) continue;
    }
    out[key] = convertValue(field, v);
  }
  return out;
}
