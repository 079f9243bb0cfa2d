// Request bodies built to cost a server memory or time out of all proportion to their size
// (issue 14 item 3): nesting far past any real object, YAML aliases that refer to themselves or
// expand exponentially. Each fits in the 3 MiB body limit and must be answered with a 4xx Status
// that changes nothing. Shared by the hostile-body measurement and the reliability probe.

/** One hostile request: `pathSuffix` is appended to the server's URL. */
export interface HostileBody {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  pathSuffix: string;
  contentType: string;
  body: Buffer;
}

/** The ConfigMap the updates, patches and deletes aim at: create it (with {@link hostileTarget}) before sending them. */
export const HOSTILE_TARGET = 'hostile-target';

/** What to create first, in `namespace`, so the bodies aimed at {@link HOSTILE_TARGET} meet an object. */
export function hostileTarget(): { apiVersion: string; kind: string; metadata: { name: string }; data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: HOSTILE_TARGET }, data: { a: '1' } };
}

const MiB = 1024 * 1024;
/** The body limit, less room for the envelope around the nesting. */
const ROOM = 3 * MiB - 4096;

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** `levels` arrays one inside the next: two bytes a level. */
export function nestedArrays(levels: number, inner = ''): string {
  return '['.repeat(levels) + inner + ']'.repeat(levels);
}

/** `levels` objects one inside the next, each with the one key "a": six bytes a level. */
export function nestedObjects(levels: number, inner = '1'): string {
  return '{"a":'.repeat(levels) + inner + '}'.repeat(levels);
}

/** YAML block sequences `levels` deep ("- - - … x"): two bytes a level. */
export function nestedBlockYaml(levels: number, indent = ''): string {
  return `${indent}${'- '.repeat(levels)}x\n`;
}

/** A ConfigMap's JSON with `data` replaced by `data` (a JSON text). */
function configMapJson(name: string, data: string): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":${data}}`;
}

function configMapYaml(name: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;
}

/** Ten anchors, each a list of nine uses of the one before: 9^10 strings once expanded. */
export function billionLaughs(indent = ''): string {
  let text = `${indent}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
  for (let i = 1; i < 10; i++) text += `${indent}a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
  return text;
}

// ---- Protobuf ----

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A length-delimited field: its key (field number, wire type 2), length and bytes. */
function field(number: number, bytes: Buffer | string): Buffer {
  const payload = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return Buffer.concat([Buffer.from([...varint((number << 3) | 2), ...varint(payload.length)]), payload]);
}

function varintField(number: number, value: number): Buffer {
  return Buffer.from([...varint(number << 3), ...varint(value)]);
}

/**
 * `levels` messages, each the field `number` of the one around it, around `inner`: written
 * outermost first in one pass (sizes worked out from the inside), never copied per level.
 */
function nestedMessages(number: number, levels: number, inner: Buffer): Buffer {
  const key = varint((number << 3) | 2);
  const sizes = new Array<number>(levels + 1);
  sizes[0] = inner.length;
  for (let i = 1; i <= levels; i++) sizes[i] = key.length + varint(sizes[i - 1]!).length + sizes[i - 1]!;
  const out = Buffer.alloc(sizes[levels]!);
  let at = 0;
  for (let i = levels; i >= 1; i--) {
    for (const b of key) out[at++] = b;
    for (const b of varint(sizes[i - 1]!)) out[at++] = b;
  }
  inner.copy(out, at);
  return out;
}

/** A Kubernetes protobuf body: the magic, then a runtime.Unknown holding `raw`. */
function protobufBody(apiVersion: string, kind: string, raw: Buffer, contentType = ''): Buffer {
  const typeMeta = Buffer.concat([field(1, apiVersion), field(2, kind)]);
  const parts = [field(1, typeMeta), field(2, raw)];
  if (contentType) parts.push(field(4, contentType));
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), ...parts]);
}

/**
 * A CustomResourceDefinition in Protobuf whose schema is `not: {not: {…}}` `levels` deep (by
 * default as deep as the body limit allows).
 */
export function deepCrdProtobuf(levels = Math.floor((ROOM - 1024) / 6)): Buffer {
  // JSONSchemaProps.not is field 28: a two-byte key and a length of at most four bytes a level.
  const schema = nestedMessages(28, levels, field(5, 'object'));
  const version = Buffer.concat([field(1, 'v1'), varintField(2, 1), varintField(3, 1), field(4, field(1, schema))]);
  const names = Buffer.concat([field(1, 'hostiles'), field(2, 'hostile'), field(4, 'Hostile'), field(5, 'HostileList')]);
  const spec = Buffer.concat([field(1, 'example.com'), field(3, names), field(4, 'Namespaced'), field(7, version)]);
  const crd = Buffer.concat([field(1, field(1, 'hostiles.example.com')), field(2, spec)]);
  return protobufBody('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd);
}

/**
 * A ControllerRevision whose data (a RawExtension) holds a Protobuf ControllerRevision whose data
 * holds another, `levels` deep: each level decoded by a decoder the one around it calls.
 */
export function rawExtensionChainProtobuf(levels: number): Buffer {
  const magic = [0x6b, 0x38, 0x73, 0x00];
  const typeMeta = field(1, Buffer.concat([field(1, 'apps/v1'), field(2, 'ControllerRevision')]));
  // One level around `inner` (n bytes): magic, Unknown{typeMeta, raw: ControllerRevision{data: RawExtension{raw: inner}}}.
  const rawExtension = (n: number) => 1 + varint(n).length + n;
  const controllerRevision = (n: number) => 1 + varint(rawExtension(n)).length + rawExtension(n);
  const level = (n: number) => magic.length + typeMeta.length + 1 + varint(controllerRevision(n)).length + controllerRevision(n);
  const inner = field(1, field(1, 'hostile-chain'));
  const sizes = [inner.length];
  for (let i = 1; i <= levels; i++) sizes.push(level(sizes[i - 1]!));
  const out = Buffer.alloc(sizes[levels]!);
  let at = 0;
  const put = (bytes: ArrayLike<number>) => {
    for (let k = 0; k < bytes.length; k++) out[at++] = bytes[k]!;
  };
  for (let i = levels; i >= 1; i--) {
    const n = sizes[i - 1]!;
    put(magic);
    put(typeMeta);
    put([0x12, ...varint(controllerRevision(n))]);
    put([0x12, ...varint(rawExtension(n))]);
    put([0x0a, ...varint(n)]);
  }
  put(inner);
  return out;
}

// ---- The bodies ----

/** Every hostile body, aimed at ConfigMaps in `namespace` (and one at CustomResourceDefinitions). */
export function hostileBodies(namespace = 'default'): HostileBody[] {
  const collection = `/api/v1/namespaces/${namespace}/configmaps`;
  const target = `${collection}/${HOSTILE_TARGET}`;
  const applyTo = (name: string) => `${collection}/${name}?fieldManager=hostile`;
  const million = 1_000_000;
  const body = (text: string) => Buffer.from(text);
  return [
    // Server-side apply: JSON text (read as YAML) and YAML proper.
    { name: 'apply, JSON text nested 10^6 levels', method: 'PATCH', pathSuffix: applyTo('hostile-apply1'), contentType: APPLY, body: body(configMapJson('hostile-apply1', nestedArrays(million))) },
    { name: 'apply, YAML block nested 10^6 levels', method: 'PATCH', pathSuffix: applyTo('hostile-apply2'), contentType: APPLY, body: body(`${configMapYaml('hostile-apply2')}data:\n${nestedBlockYaml(million, '  ')}`) },
    { name: 'apply, YAML flow nested 10^6 levels', method: 'PATCH', pathSuffix: applyTo('hostile-apply3'), contentType: APPLY, body: body(`${configMapYaml('hostile-apply3')}data: ${nestedArrays(million)}\n`) },
    { name: 'apply, recursive YAML alias', method: 'PATCH', pathSuffix: applyTo('hostile-apply4'), contentType: APPLY, body: body(`${configMapYaml('hostile-apply4')}data: &a {x: *a}\n`) },
    { name: 'apply, YAML alias explosion (billion laughs)', method: 'PATCH', pathSuffix: applyTo('hostile-apply5'), contentType: APPLY, body: body(`${configMapYaml('hostile-apply5')}laughs:\n${billionLaughs('  ')}`) },
    // Create and update in YAML.
    { name: 'POST application/yaml, block nested 10^6 levels', method: 'POST', pathSuffix: collection, contentType: YAML_TYPE, body: body(`${configMapYaml('hostile-yaml1')}data:\n${nestedBlockYaml(million, '  ')}`) },
    { name: 'POST application/yaml, flow nested 10^6 levels', method: 'POST', pathSuffix: collection, contentType: YAML_TYPE, body: body(`${configMapYaml('hostile-yaml2')}data: ${nestedArrays(million)}\n`) },
    { name: 'POST application/yaml, JSON text nested 10^6 levels', method: 'POST', pathSuffix: collection, contentType: YAML_TYPE, body: body(configMapJson('hostile-yaml3', nestedArrays(million))) },
    { name: 'POST application/yaml, recursive alias', method: 'POST', pathSuffix: collection, contentType: YAML_TYPE, body: body(`${configMapYaml('hostile-yaml4')}data: &a [*a]\n`) },
    { name: 'POST application/yaml, alias explosion (billion laughs)', method: 'POST', pathSuffix: collection, contentType: YAML_TYPE, body: body(`${configMapYaml('hostile-yaml5')}laughs:\n${billionLaughs('  ')}`) },
    { name: 'PUT application/yaml, block nested 10^6 levels', method: 'PUT', pathSuffix: target, contentType: YAML_TYPE, body: body(`${configMapYaml(HOSTILE_TARGET)}data:\n${nestedBlockYaml(million, '  ')}`) },
    // Create and update in JSON.
    { name: 'POST JSON, arrays nested 10^6 levels', method: 'POST', pathSuffix: collection, contentType: JSON_TYPE, body: body(configMapJson('hostile-json1', nestedArrays(million))) },
    { name: 'POST JSON, objects nested 10^4 levels', method: 'POST', pathSuffix: collection, contentType: JSON_TYPE, body: body(configMapJson('hostile-json2', nestedObjects(10_000))) },
    { name: 'POST JSON, objects nested 5*10^5 levels', method: 'POST', pathSuffix: collection, contentType: JSON_TYPE, body: body(configMapJson('hostile-json3', nestedObjects(Math.floor(ROOM / 6)))) },
    { name: 'PUT JSON, arrays nested 10^6 levels', method: 'PUT', pathSuffix: target, contentType: JSON_TYPE, body: body(configMapJson(HOSTILE_TARGET, nestedArrays(million))) },
    // Patches.
    { name: 'merge patch, objects nested 10^4 levels', method: 'PATCH', pathSuffix: target, contentType: MERGE, body: body(`{"data":${nestedObjects(10_000)}}`) },
    { name: 'merge patch, nested 10^6 levels', method: 'PATCH', pathSuffix: target, contentType: MERGE, body: body(`{"data":{"a":${nestedArrays(million)}}}`) },
    { name: 'merge patch, objects nested 5*10^5 levels', method: 'PATCH', pathSuffix: target, contentType: MERGE, body: body(nestedObjects(Math.floor(ROOM / 6))) },
    { name: 'strategic merge patch, objects nested 10^4 levels', method: 'PATCH', pathSuffix: target, contentType: STRATEGIC, body: body(`{"data":${nestedObjects(10_000)}}`) },
    { name: 'strategic merge patch, nested 10^6 levels', method: 'PATCH', pathSuffix: target, contentType: STRATEGIC, body: body(`{"data":{"a":${nestedArrays(million)}}}`) },
    { name: 'JSON patch, a value nested 10^4 levels', method: 'PATCH', pathSuffix: target, contentType: JSON_PATCH, body: body(`[{"op":"add","path":"/data/x","value":${nestedObjects(10_000)}}]`) },
    { name: 'JSON patch, a value nested 10^6 levels', method: 'PATCH', pathSuffix: target, contentType: JSON_PATCH, body: body(`[{"op":"add","path":"/metadata/labels","value":${nestedArrays(million)}}]`) },
    // Delete options.
    { name: 'DELETE options nested 10^6 levels', method: 'DELETE', pathSuffix: target, contentType: JSON_TYPE, body: body(nestedArrays(million)) },
    { name: 'DELETE options, objects nested 10^4 levels', method: 'DELETE', pathSuffix: target, contentType: JSON_TYPE, body: body(`{"preconditions":${nestedObjects(10_000)}}`) },
    // Protobuf: JSON carried in the envelope, and a recursive message type.
    { name: 'POST protobuf, envelope of JSON nested 10^6 levels', method: 'POST', pathSuffix: collection, contentType: PROTOBUF, body: protobufBody('v1', 'ConfigMap', Buffer.from(configMapJson('hostile-pb1', nestedArrays(million))), 'application/json') },
    { name: 'POST protobuf, RawExtensions holding Protobuf 5*10^4 levels deep', method: 'POST', pathSuffix: `/apis/apps/v1/namespaces/${namespace}/controllerrevisions`, contentType: PROTOBUF, body: rawExtensionChainProtobuf(50_000) },
    { name: 'POST protobuf, CRD schema nested 5*10^5 levels', method: 'POST', pathSuffix: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', contentType: PROTOBUF, body: deepCrdProtobuf() },
  ];
}
