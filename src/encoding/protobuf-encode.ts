// Plain JSON objects → Kubernetes Protobuf (application/vnd.kubernetes.protobuf), the inverse of
// protobuf.ts, byte for byte what the reference (gogo-protobuf generated Marshal) writes.
//
// Wire format: the magic "k8s\0", then runtime.Unknown {typeMeta{apiVersion, kind}, raw, contentEncoding,
// contentType}; the reference writes contentEncoding and contentType even though both are "" (1a 00 22 00).
//
// Marshalling rules (checked against the k8s testdata .pb files and the recorded protobuf responses):
// - fields in field-number order; repeated scalars unpacked; maps sorted by key (byte order), every entry
//   with both key (1) and value (2), even when empty;
// - plain (non-pointer) Go scalars are always written, even when zero: a JSON key that is absent
//   (omitempty) is written as "", 0 or false, unless the field is a pointer in Go (POINTER_FIELDS of
//   protobuf.ts, the Go types' scalar pointers extracted into data/go-nil-fields-1.25.json, plus
//   ENCODE_POINTER_FIELDS here), which is then left out; a present value is always written;
// - []byte fields are written when present (even empty), left out when absent (nil);
// - sub-messages are written when the JSON has them; an absent or null sub-message is left out (a nil
//   pointer), except plain-struct special types (Time, MicroTime, Duration, Quantity, IntOrString,
//   RawExtension), which Go writes even when zero: `null` for those, or an absent key listed in
//   NON_POINTER_MESSAGES (ObjectMeta.creationTimestamp, condition times, …), is written as their zero;
// - embedded structs (INLINE_FIELDS) are re-nested from the parent's own keys, always written;
// - Time / MicroTime → {seconds, nanos} both written, the zero time → an empty message;
//   Duration → {duration: ns}; Quantity → {string}; IntOrString → {type, intVal, strVal} all written;
//   RawExtension / FieldsV1 / apiextensions JSON → {raw: compact JSON bytes (JSON.stringify)};
//   Verbs / ExtraValue → {items}; JSONSchemaPropsOr{Array,Bool,StringArray} from their union value;
// - JSON names back to proto names ($ref → ref, x-kubernetes-foo → xKubernetesFoo, apiGroup → aPIGroup…).
//
// Watch streams (`application/vnd.kubernetes.protobuf;stream=watch`) use the *raw* serializer for the
// event: each frame is a 4-byte big-endian length followed by the bare meta.v1.WatchEvent message (no
// magic, no Unknown), whose object.raw holds the object's full envelope (magic + Unknown).
import type * as protobuf from 'protobufjs';
import { INLINE_FIELDS, isGoScalarPointer, jsonName, NOT_POINTER, POINTER_FIELDS, PROTOBUF_MAGIC, protobufLibrary, protobufRegistry, protobufTypeFor } from './protobuf.js';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

const CORE = 'k8s.io.api.core.v1';
const APIEXT_V1 = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/**
 * Pointer fields in Go the decoder's table does not list (absent → not written). Keys: "Message.field",
 * or "<proto package>.Message.field" where messages of the same name differ between packages.
 */
const ENCODE_POINTER_FIELDS = new Set<string>([
  'JSONSchemaProps.xKubernetesListType', 'JSONSchemaProps.xKubernetesMapType',
  'ListMeta.remainingItemCount', 'ContainerStatus.started', 'VolumeMount.mountPropagation',
  'SecurityContext.procMount', 'WindowsSecurityContextOptions.gmsaCredentialSpecName',
  'WindowsSecurityContextOptions.gmsaCredentialSpec', 'WindowsSecurityContextOptions.runAsUserName',
  'WindowsSecurityContextOptions.hostProcess', 'GRPCAction.service', 'TopologySpreadConstraint.nodeAffinityPolicy',
  'TopologySpreadConstraint.nodeTaintsPolicy', 'PortStatus.error', 'PersistentVolumeClaimStatus.resizeStatus',
  'CSIVolumeSource.fsType', 'StorageClass.reclaimPolicy', 'StorageClass.volumeBindingMode', 'CSIDriverSpec.fsGroupPolicy',
  'CSIDriverSpec.seLinuxMount', 'VolumeAttachmentSource.persistentVolumeName', 'VolumeNodeResources.count',
  'NetworkPolicyPort.protocol', 'NetworkPolicyPort.endPort', 'IngressClassParametersReference.aPIGroup',
  'IngressClassParametersReference.namespace', 'TypedLocalObjectReference.apiGroup', 'JobSpec.completionMode',
  'PodFailurePolicyOnExitCodesRequirement.containerName', 'CronJobSpec.timeZone', 'MetricTarget.averageUtilization',
  'MetricValueStatus.averageUtilization', 'HorizontalPodAutoscalerStatus.currentCPUUtilizationPercentage',
  'HorizontalPodAutoscalerStatus.observedGeneration', 'WebhookClientConfig.url', 'ServiceReference.path',
  'CustomResourceSubresourceScale.labelSelectorPath', 'CustomResourceDefinitionVersion.deprecationWarning',
  'LeaseSpec.holderIdentity', 'Preconditions.uid', 'Preconditions.resourceVersion', 'DeleteOptions.orphanDependents',
  'DeleteOptions.propagationPolicy', 'PatchOptions.force', 'AdmissionRequest.dryRun', 'AdmissionResponse.patchType',
  'SeccompProfile.localhostProfile', 'HostPathVolumeSource.type', 'ISCSIVolumeSource.initiatorName',
  'ISCSIPersistentVolumeSource.initiatorName', 'AzureDiskVolumeSource.cachingMode', 'AzureDiskVolumeSource.fsType',
  'AzureDiskVolumeSource.readOnly', 'AzureDiskVolumeSource.kind', 'FCVolumeSource.lun', 'LocalVolumeSource.fsType',
  'StorageVersionStatus.commonEncodingVersion', 'PodDNSConfigOption.value',
  'PodSecurityPolicySpec.defaultAllowPrivilegeEscalation', 'RuntimeClassStrategyOptions.defaultRuntimeClassName',
  'k8s.io.api.discovery.v1.EndpointPort.name', 'k8s.io.api.discovery.v1.EndpointPort.protocol',
  'k8s.io.api.discovery.v1beta1.EndpointPort.name', 'k8s.io.api.discovery.v1beta1.EndpointPort.protocol',
  'k8s.io.api.certificates.v1beta1.CertificateSigningRequestSpec.signerName',
]);

/** Plain (non-pointer) fields the decoder's name-wide table calls pointers (absent → zero written). */
const ENCODE_NOT_POINTER = new Set<string>([
  'ContainerStatus.ready', 'StatusDetails.retryAfterSeconds', 'SubjectAccessReviewStatus.allowed',
  'AdmissionResponse.allowed', 'ImageReviewStatus.allowed', 'PriorityClass.value', 'GRPCAction.port',
  `${CORE}.EndpointPort.port`, 'CustomResourceColumnDefinition.priority', 'CustomResourceDefinitionSpec.scope',
  `${APIEXT_V1}.CustomResourceDefinitionSpec.preserveUnknownFields`, 'PersistentVolumeSpec.storageClassName',
  'DeploymentStatus.replicas', 'ReplicaSetStatus.replicas', 'StatefulSetStatus.replicas',
  'ReplicationControllerStatus.replicas', 'ScaleSpec.replicas', 'ScaleStatus.replicas', 'IngressClassSpec.controller',
  'PodSecurityPolicySpec.privileged', 'PodSecurityPolicySpec.readOnlyRootFilesystem', 'ServiceSpec.healthCheckNodePort',
  'CSIPersistentVolumeSource.readOnly',
]);

/** Plain-struct special-type fields that Go writes even when zero, when the JSON key is absent. */
const NON_POINTER_MESSAGES = new Set<string>([
  'ObjectMeta.creationTimestamp',
  'PodCondition.lastProbeTime', 'PodCondition.lastTransitionTime',
  'ContainerStateRunning.startedAt', 'ContainerStateTerminated.startedAt', 'ContainerStateTerminated.finishedAt',
  'NodeCondition.lastHeartbeatTime', 'NodeCondition.lastTransitionTime',
  'NamespaceCondition.lastTransitionTime',
  'PersistentVolumeClaimCondition.lastProbeTime', 'PersistentVolumeClaimCondition.lastTransitionTime',
  'ReplicationControllerCondition.lastTransitionTime',
  'DeploymentCondition.lastUpdateTime', 'DeploymentCondition.lastTransitionTime',
  'ReplicaSetCondition.lastTransitionTime', 'StatefulSetCondition.lastTransitionTime',
  'DaemonSetCondition.lastTransitionTime',
  'JobCondition.lastProbeTime', 'JobCondition.lastTransitionTime',
  'CertificateSigningRequestCondition.lastUpdateTime', 'CertificateSigningRequestCondition.lastTransitionTime',
  'Condition.lastTransitionTime',
  'CustomResourceDefinitionCondition.lastTransitionTime', 'APIServiceCondition.lastTransitionTime',
  'FlowSchemaCondition.lastTransitionTime', 'PriorityLevelConfigurationCondition.lastTransitionTime',
  'StorageVersionCondition.lastTransitionTime',
  'Event.firstTimestamp', 'Event.lastTimestamp', 'Event.eventTime',
  'Event.deprecatedFirstTimestamp', 'Event.deprecatedLastTimestamp',
  'EventSeries.lastObservedTime', 'VolumeError.time',
  'ControllerRevision.data', 'WatchEvent.object',
]);

// ---- JSON values of special types ----

/** RFC 3339 → [seconds, nanos]; undefined for an unparsable or empty value. */
function parseTime(v: unknown): [bigint, number] | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:\d{2})$/.exec(v);
  if (!m) {
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) return undefined;
    return [BigInt(Math.floor(ms / 1000)), (((ms % 1000) + 1000) % 1000) * 1_000_000];
  }
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  let seconds = BigInt(Math.floor(d.getTime() / 1000));
  const zone = m[8]!;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1n : 1n;
    seconds -= sign * BigInt(Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  const nanos = m[7] ? Number(m[7].slice(0, 9).padEnd(9, '0')) : 0;
  return [seconds, nanos];
}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n,
};

/** Go's time.ParseDuration, in nanoseconds (0 for an unparsable value). */
export function parseGoDuration(v: unknown): bigint {
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v !== 'string') return 0n;
  let s = v.trim();
  let sign = 1n;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1n;
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  let total = 0n;
  const re = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(s)) !== null) {
    if (m[0] === '') break;
    const unit = DURATION_UNITS[m[3]!]!;
    const whole = BigInt(m[1] || '0');
    let frac = 0n;
    if (m[2]) {
      const digits = m[2];
      frac = (BigInt(digits) * unit) / 10n ** BigInt(digits.length);
    }
    total += whole * unit + frac;
    consumed = re.lastIndex;
  }
  if (consumed !== s.length) return 0n;
  return sign * total;
}

/** Compact JSON as Go's json.Marshal writes it (no HTML escaping: the raw bytes are kept as stored). */
function jsonBytes(v: unknown): Buffer {
  return Buffer.from(JSON.stringify(v) ?? 'null', 'utf8');
}

// ---- writer: one growing buffer; length-delimited fields get their length patched in afterwards ----

class Writer {
  buf: Buffer;
  pos = 0;

  constructor(size = 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Unsigned varint of a non-negative safe integer. */
  uvarint(n: number): void {
    this.ensure(10);
    const buf = this.buf;
    while (n >= 0x80) {
      buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[this.pos++] = n;
  }

  /** Varint of a signed 64-bit value (negative → two's complement, 10 bytes). */
  varint64(v: bigint | number): void {
    if (typeof v === 'number' && v >= 0 && Number.isSafeInteger(v)) return this.uvarint(v);
    let u = BigInt.asUintN(64, BigInt(v));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  tag(id: number, wire: number): void {
    this.uvarint(id * 8 + wire);
  }

  bytes(id: number, b: Uint8Array): void {
    this.tag(id, 2);
    this.uvarint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  string(id: number, s: string): void {
    this.tag(id, 2);
    const len = Buffer.byteLength(s, 'utf8');
    this.uvarint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }

  /** Starts a length-delimited field; returns the position of its (1-byte, patched later) length. */
  begin(id: number): number {
    this.tag(id, 2);
    this.ensure(1);
    return this.pos++;
  }

  end(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let size = 1;
    for (let n = len; n >= 0x80; n = Math.floor(n / 0x80)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    let n = len;
    let i = at;
    while (n >= 0x80) {
      this.buf[i++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[i] = n;
  }

  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }

  /** The bytes in memory of their own, outside the Buffer pool (for bytes kept long). */
  finishUnpooled(): Buffer {
    const own = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(own, 0, 0, this.pos);
    return own;
  }
}

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
  if (v === null || v === undefined || v === '') return 0n;
  const n = Number(v);
  return Number.isFinite(n) ? BigInt(Math.trunc(n)) : 0n;
}

/** An integer value for a varint: fast path for safe non-negative numbers. */
function intValue(v: unknown): number | bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  return toBigInt(v);
}

function bytesOf(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return Buffer.from(v, 'base64');
  return Buffer.alloc(0);
}

/** One scalar field (tag + value). */
function scalar(w: Writer, id: number, type: string, v: unknown): void {
  switch (type) {
    case 'string':
      w.string(id, typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
      return;
    case 'bytes':
      w.bytes(id, bytesOf(v));
      return;
    case 'bool':
      w.tag(id, 0);
      w.uvarint(v === true ? 1 : 0);
      return;
    case 'double':
      w.tag(id, 1);
      w.ensure(8);
      w.buf.writeDoubleLE(typeof v === 'number' ? v : Number(v ?? 0), w.pos);
      w.pos += 8;
      return;
    case 'float':
      w.tag(id, 5);
      w.ensure(4);
      w.buf.writeFloatLE(typeof v === 'number' ? v : Number(v ?? 0), w.pos);
      w.pos += 4;
      return;
    case 'int32': {
      const n = intValue(v);
      w.tag(id, 0);
      w.varint64(typeof n === 'number' && n >= 0 && n <= 0x7fffffff ? n : BigInt.asIntN(32, BigInt(n)));
      return;
    }
    case 'sint32':
    case 'sint64': {
      const n = toBigInt(v);
      w.tag(id, 0);
      w.varint64(n >= 0n ? n * 2n : -n * 2n - 1n);
      return;
    }
    default: // int64, uint32, uint64
      w.tag(id, 0);
      w.varint64(intValue(v));
  }
}

// ---- special types ----

type SpecialKind =
  | 'time' | 'duration' | 'fieldsV1' | 'items' | 'quantity' | 'intOrString' | 'raw' | 'json'
  | 'orArray' | 'orBool' | 'orStringArray';

const specialKinds = new WeakMap<protobuf.Type, SpecialKind | null>();

function specialKindOf(type: protobuf.Type): SpecialKind | null {
  const cached = specialKinds.get(type);
  if (cached !== undefined) return cached;
  const full = type.fullName.replace(/^\./, '');
  let kind: SpecialKind | null = null;
  switch (full) {
    case `${META}.Time`:
    case `${META}.MicroTime`:
      kind = 'time';
      break;
    case `${META}.Duration`:
      kind = 'duration';
      break;
    case `${META}.FieldsV1`:
      kind = 'fieldsV1';
      break;
    case `${META}.Verbs`:
      kind = 'items';
      break;
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
    case 'k8s.io.apimachinery.pkg.api.resource.QuantityValue':
      kind = 'quantity';
      break;
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      kind = 'intOrString';
      break;
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
      kind = 'raw';
      break;
    default:
      if (type.name === 'ExtraValue' && type.fieldsArray.length === 1) kind = 'items';
      else if (full.startsWith('k8s.io.apiextensions_apiserver.')) {
        if (type.name === 'JSON') kind = 'json';
        else if (type.name === 'JSONSchemaPropsOrArray') kind = 'orArray';
        else if (type.name === 'JSONSchemaPropsOrBool') kind = 'orBool';
        else if (type.name === 'JSONSchemaPropsOrStringArray') kind = 'orStringArray';
      }
  }
  specialKinds.set(type, kind);
  return kind;
}

/** Special types that are plain structs wherever k8s uses them singly: Go writes `null` for their zero. */
const PLAIN_SPECIALS = new Set<SpecialKind | null>(['time', 'duration', 'quantity', 'intOrString', 'raw']);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** Writes a special type's message content (no tag/length) from its JSON value. */
function writeSpecial(w: Writer, kind: SpecialKind, type: protobuf.Type, v: unknown): void {
  switch (kind) {
    case 'time': {
      const t = parseTime(v);
      if (!t) return; // the zero time: an empty message
      scalar(w, 1, 'int64', t[0]);
      scalar(w, 2, 'int32', t[1]);
      return;
    }
    case 'duration':
      scalar(w, 1, 'int64', parseGoDuration(v));
      return;
    case 'fieldsV1':
    case 'raw':
    case 'json':
      if (v === undefined || v === null) return; // nil raw
      w.bytes(1, v instanceof Uint8Array ? v : jsonBytes(v));
      return;
    case 'items':
      if (Array.isArray(v)) for (const s of v) scalar(w, 1, 'string', s);
      return;
    case 'quantity':
      scalar(w, 1, 'string', v === undefined || v === null || v === '' ? '0' : String(v));
      return;
    case 'intOrString': {
      const isString = typeof v === 'string';
      scalar(w, 1, 'int64', isString ? 1 : 0);
      scalar(w, 2, 'int32', isString ? 0 : (v ?? 0));
      scalar(w, 3, 'string', isString ? v : '');
      return;
    }
    case 'orArray': {
      const schema = type.fields.schema!;
      const schemas = type.fields.jSONSchemas!;
      if (isPlainObject(v)) writeSubMessage(w, schema.id, schema.resolvedType as protobuf.Type, v);
      else if (Array.isArray(v)) for (const item of v) writeSubMessage(w, schemas.id, schemas.resolvedType as protobuf.Type, item);
      return;
    }
    case 'orBool': {
      const schema = type.fields.schema!;
      scalar(w, type.fields.allows!.id, 'bool', isPlainObject(v) ? true : v === true);
      if (isPlainObject(v)) writeSubMessage(w, schema.id, schema.resolvedType as protobuf.Type, v);
      return;
    }
    case 'orStringArray': {
      const schema = type.fields.schema!;
      if (isPlainObject(v)) writeSubMessage(w, schema.id, schema.resolvedType as protobuf.Type, v);
      else if (Array.isArray(v)) for (const s of v) scalar(w, type.fields.property!.id, 'string', s);
      return;
    }
  }
}

// ---- messages ----

interface FieldPlan {
  field: protobuf.Field;
  id: number;
  type: string;
  key: string;
  inline: boolean;
  pointer: boolean;
  /** A plain struct Go writes even when the JSON key is absent. */
  alwaysMessage: boolean;
  message?: protobuf.Type;
  special: SpecialKind | null;
  map: boolean;
  repeated: boolean;
  keyType: string;
}

const plans = new WeakMap<protobuf.Type, FieldPlan[]>();

function planOf(type: protobuf.Type): FieldPlan[] {
  let plan = plans.get(type);
  if (plan) return plan;
  plan = [...type.fieldsArray]
    .sort((a, b) => a.id - b.id)
    .map((field) => {
      field.resolve();
      const qualified = `${type.name}.${field.name}`;
      const full = `${type.fullName.replace(/^\./, '')}.${field.name}`;
      const message = field.resolvedType instanceof protobufLibrary().Type ? field.resolvedType : undefined;
      const pointer =
        ENCODE_POINTER_FIELDS.has(full) ||
        ENCODE_POINTER_FIELDS.has(qualified) ||
        isGoScalarPointer(type, field) ||
        (!ENCODE_NOT_POINTER.has(full) &&
          !ENCODE_NOT_POINTER.has(qualified) &&
          !NOT_POINTER.has(qualified) &&
          (POINTER_FIELDS.has(qualified) || POINTER_FIELDS.has(field.name)));
      const map = field instanceof protobufLibrary().MapField || Boolean(field.map);
      const p: FieldPlan = {
        field,
        id: field.id,
        type: field.type,
        key: jsonName(type.name, field.name),
        inline: INLINE_FIELDS.has(qualified),
        pointer,
        alwaysMessage: NON_POINTER_MESSAGES.has(qualified),
        special: message ? specialKindOf(message) : null,
        map,
        repeated: field.repeated && !map,
        keyType: map ? ((field as unknown as protobuf.MapField).keyType ?? 'string') : 'string',
      };
      if (message) p.message = message;
      return p;
    });
  plans.set(type, plan);
  return plan;
}

function compareGoStrings(a: string, b: string): number {
  // Go orders strings by their UTF-8 bytes; UTF-16 order differs only when surrogates are involved.
  if (/[\ud800-\udfff]/.test(a) || /[\ud800-\udfff]/.test(b)) return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A sub-message field (tag, length, content) from its JSON value. */
function writeSubMessage(w: Writer, id: number, type: protobuf.Type, v: unknown): void {
  const at = w.begin(id);
  const special = specialKindOf(type);
  if (special) writeSpecial(w, special, type, v);
  else writeMessage(w, type, isPlainObject(v) ? v : {});
  w.end(at);
}

/** One value of a map, repeated or singular field (tag included). */
function writeValue(w: Writer, id: number, plan: FieldPlan, v: unknown): void {
  if (plan.message) writeSubMessage(w, id, plan.message, v);
  else scalar(w, id, plan.type, v);
}

function writeMessage(w: Writer, type: protobuf.Type, json: Record<string, unknown>): void {
  for (const plan of planOf(type)) {
    const id = plan.id;
    if (plan.inline && plan.message) {
      writeSubMessage(w, id, plan.message, json);
      continue;
    }
    const v = Object.prototype.hasOwnProperty.call(json, plan.key) ? json[plan.key] : undefined;
    if (plan.map) {
      if (!isPlainObject(v)) continue;
      const keys = Object.keys(v).sort(compareGoStrings);
      for (const k of keys) {
        const at = w.begin(id);
        scalar(w, 1, plan.keyType, k);
        writeValue(w, 2, plan, v[k]);
        w.end(at);
      }
      continue;
    }
    if (plan.repeated) {
      if (!Array.isArray(v)) continue;
      for (const item of v) writeValue(w, id, plan, item);
      continue;
    }
    if (plan.message) {
      if (v === undefined || v === null) {
        // nil pointer → absent; plain special structs are written as their zero value
        if (v === undefined ? !plan.alwaysMessage : !plan.alwaysMessage && !PLAIN_SPECIALS.has(plan.special!)) continue;
      }
      writeSubMessage(w, id, plan.message, v);
      continue;
    }
    if ((v === undefined || v === null) && (plan.pointer || plan.type === 'bytes')) continue;
    scalar(w, id, plan.type, v);
  }
}

/** Encodes a message from its JSON object (fields by number, Go's zero-value rules), without envelope. */
export function encodeMessage(type: protobuf.Type, json: Record<string, unknown>): Buffer {
  const w = new Writer();
  writeMessage(w, type, json);
  return w.finish();
}

// ---- envelopes ----

function writeEnvelope(w: Writer, apiVersion: string, kind: string, raw: (w: Writer) => void): void {
  w.ensure(4);
  PROTOBUF_MAGIC.copy(w.buf, w.pos);
  w.pos += 4;
  const typeMeta = w.begin(1);
  w.string(1, apiVersion);
  w.string(2, kind);
  w.end(typeMeta);
  const at = w.begin(2);
  raw(w);
  w.end(at);
  w.string(3, '');
  w.string(4, '');
}

/** magic + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding "", contentType ""}. */
export function encodeProtobufEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const w = new Writer(raw.length + 64);
  writeEnvelope(w, apiVersion, kind, (ww) => copyInto(ww, raw));
  return w.finish();
}

function typeOrThrow(apiVersion: string, kind: string): protobuf.Type {
  const type = protobufTypeFor(apiVersion, kind);
  if (!type) throw new Error(`no protobuf message for kind "${kind}" in version "${apiVersion}"`);
  return type;
}

/** Kinds that have (or may get) a message but that the reference does not serve in protobuf. */
const NOT_SERVED_IN_PROTOBUF = new Set<string>(['Table', 'TableOptions']);

/** Whether a kind of an apiVersion has a Protobuf message (Table and custom resources do not → 406 or fall back). */
export function canEncodeProtobuf(apiVersion: string, kind: string): boolean {
  const id = `${apiVersion}/${kind}`;
  let can = encodable.get(id);
  if (can === undefined) {
    try {
      can = !NOT_SERVED_IN_PROTOBUF.has(kind) && protobufTypeFor(apiVersion, kind) !== undefined;
    } catch {
      can = false;
    }
    encodable.set(id, can);
  }
  return can;
}

/** Answers of canEncodeProtobuf: asked on every request, the same every time. */
const encodable = new Map<string, boolean>();

/** What follows raw in an envelope: contentEncoding "" and contentType "" (see writeEnvelope). */
const ENVELOPE_TRAILER_LENGTH = 4;

/**
 * The object in its envelope (as encodeProtobufObject, but with the kind and apiVersion given), in
 * memory of its own, with its message (what encodeProtobufRaw gives) as a slice of the same bytes:
 * one buffer to keep for both.
 */
export function encodeProtobufEnveloped(apiVersion: string, kind: string, obj: Record<string, unknown>): { envelope: Buffer; message: Buffer } {
  const type = typeOrThrow(apiVersion, kind);
  const w = new Writer();
  let length = 0;
  writeEnvelope(w, apiVersion, kind, (ww) => {
    const start = ww.pos;
    writeMessage(ww, type, obj);
    length = ww.pos - start;
  });
  const envelope = w.finishUnpooled();
  const end = envelope.length - ENVELOPE_TRAILER_LENGTH;
  return { envelope, message: envelope.subarray(end - length, end) };
}

/** The object's message (no magic, no envelope). */
export function encodeProtobufRaw(apiVersion: string, kind: string, obj: Record<string, unknown>): Buffer {
  return encodeMessage(typeOrThrow(apiVersion, kind), obj);
}

function writeObject(w: Writer, obj: Record<string, unknown>): void {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const type = typeOrThrow(apiVersion, kind);
  writeEnvelope(w, apiVersion, kind, (ww) => writeMessage(ww, type, obj));
}

/** The wire bytes the reference sends for an object: magic 6b 38 73 00, then runtime.Unknown{typeMeta{apiVersion,kind}, raw=<object message>, contentEncoding "", contentType ""}. */
export function encodeProtobufObject(obj: Record<string, unknown>): Buffer {
  const w = new Writer();
  writeObject(w, obj);
  return w.finish();
}

/** A list (e.g. ConfigMapList) given its kind/apiVersion, ListMeta and item objects. */
export function encodeProtobufList(listKind: string, apiVersion: string, metadata: Record<string, unknown>, items: Record<string, unknown>[]): Buffer {
  const type = typeOrThrow(apiVersion, listKind);
  const w = new Writer(4096);
  writeEnvelope(w, apiVersion, listKind, (ww) => writeMessage(ww, type, { metadata, items }));
  return w.finish();
}

/** The bare meta.v1.WatchEvent message for an event (object.raw = the object's full envelope). */
export function encodeProtobufWatchEventMessage(type: string, obj: Record<string, unknown>): Buffer {
  const w = new Writer();
  writeWatchEvent(w, type, obj);
  return w.finish();
}

function writeWatchEvent(w: Writer, type: string, obj: Record<string, unknown>): void {
  w.string(1, type);
  const object = w.begin(2); // RawExtension
  const raw = w.begin(1);
  writeObject(w, obj);
  w.end(raw);
  w.end(object);
}

/**
 * A watch event frame as the reference streams `application/vnd.kubernetes.protobuf;stream=watch`:
 * a 4-byte big-endian length, then the bare WatchEvent message (the stream uses the raw serializer:
 * no magic, no Unknown around the event; the object inside carries its own envelope).
 */
export function encodeProtobufWatchEvent(type: string, obj: Record<string, unknown>): Buffer {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  return encodeProtobufWatchEventOfMessage(type, apiVersion, kind, encodeProtobufRaw(apiVersion, kind, obj));
}

/** The same frame around an object's message already made (see encodeProtobufRaw). */
export function encodeProtobufWatchEventOfMessage(type: string, apiVersion: string, kind: string, message: Buffer): Buffer {
  const w = new Writer(message.length + apiVersion.length + kind.length + type.length + 48);
  w.pos = 4;
  w.string(1, type);
  const object = w.begin(2); // RawExtension
  const raw = w.begin(1);
  writeEnvelope(w, apiVersion, kind, (ww) => copyInto(ww, message));
  w.end(raw);
  w.end(object);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w.finish();
}

function copyInto(w: Writer, bytes: Uint8Array): void {
  w.ensure(bytes.length);
  w.buf.set(bytes, w.pos);
  w.pos += bytes.length;
}

/** Loads the proto root (shared with the decoder). */
export function preloadProtobufEncoder(): void {
  protobufRegistry();
}

/**
 * A list assembled from its items' messages (each made once per object version by the caller's
 * cache; every Kubernetes list is {ListMeta metadata = 1; repeated items = 2}).
 */
export function encodeProtobufListOfMessages(listKind: string, apiVersion: string, metadata: Record<string, unknown>, messages: readonly Buffer[]): Buffer {
  return Buffer.concat(encodeProtobufListOfItems(listKind, apiVersion, metadata, messages.map(listItemOf)));
}

/** A list's `items` field (tag 2, length) before a message. */
export function listItemHeaderLength(messageLength: number): number {
  return 1 + uvarintLength(messageLength);
}

/** The `items` entry of a message: tag 2, length, the message (copied: see derived.ts for the slice kept with the version). */
export function listItemOf(message: Buffer): Buffer {
  const w = new Writer(message.length + 11);
  w.bytes(2, message);
  return w.finish();
}

/** Whether `bytes` (an envelope) holds `items`-field framing (tag 2, length) right before `at`, for a message of `length`. */
export function framedAsListItem(bytes: Buffer, at: number, length: number): boolean {
  const header = listItemHeaderLength(length);
  if (at < header || bytes[at - header] !== 0x12) return false;
  // The length as a minimal varint, compared byte by byte (no buffer made per item of a list).
  let n = length;
  for (let i = at - header + 1; i < at; i++) {
    const byte = i === at - 1 ? n : (n % 0x80) | 0x80;
    if (bytes[i] !== byte) return false;
    n = Math.floor(n / 0x80);
  }
  return true;
}

/**
 * The same list in pieces that are written one after another: its head (magic, envelope, ListMeta),
 * then the items as given — each an `items` entry (tag 2, length, message), typically a slice of
 * bytes kept with its object version, so nothing is copied — then the envelope's end.
 */
export function encodeProtobufListOfItems(listKind: string, apiVersion: string, metadata: Record<string, unknown>, items: readonly Buffer[]): Buffer[] {
  const listMeta = protobufRegistry().root.lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta');
  const meta = new Writer(256);
  const at = meta.begin(1);
  writeMessage(meta, listMeta, metadata);
  meta.end(at);
  let rawLength = meta.pos;
  for (const item of items) rawLength += item.length;
  const head = new Writer(meta.pos + apiVersion.length + listKind.length + 32);
  copyInto(head, PROTOBUF_MAGIC);
  const typeMeta = head.begin(1);
  head.string(1, apiVersion);
  head.string(2, listKind);
  head.end(typeMeta);
  head.tag(2, 2);
  head.uvarint(rawLength);
  copyInto(head, meta.buf.subarray(0, meta.pos));
  const chunks: Buffer[] = new Array<Buffer>(items.length + 2);
  chunks[0] = head.finish();
  for (let i = 0; i < items.length; i++) chunks[i + 1] = items[i]!;
  chunks[items.length + 1] = ENVELOPE_TRAILER;
  return chunks;
}

/** contentEncoding "" and contentType "": the runtime.Unknown's last two fields. */
const ENVELOPE_TRAILER = Buffer.from([0x1a, 0x00, 0x22, 0x00]);

function uvarintLength(n: number): number {
  let size = 1;
  for (; n >= 0x80; n = Math.floor(n / 0x80)) size++;
  return size;
}
