// A list body as the reference serves it: {"kind":"XList","apiVersion":…,"metadata":…,"items":[…]}
// built by concatenating the items' stored bytes. A typed list (a built-in's) holds its items
// without their kind and apiVersion; an unstructured list (a custom resource's) holds them whole.

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** `{"kind":K,"apiVersion":V,` — the prefix every stored object of that kind and version starts with. */
export function typePrefix(kind: string, apiVersion: string): Buffer {
  return Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},`);
}

/** Bytes already in Protobuf (a list assembled from cached item messages): sent as they are, one chunk after another. */
export class ProtobufBody {
  constructor(readonly chunks: Buffer[]) {}
}

/** A response body: JSON as one buffer or as chunks written one after another (lists are never copied whole), or Protobuf. */
export type Body = Buffer | Buffer[] | ProtobufBody;

export function bodyLength(body: Body): number {
  if (body instanceof ProtobufBody) return body.chunks.reduce((n, b) => n + b.length, 0);
  return Array.isArray(body) ? body.reduce((n, b) => n + b.length, 0) : body.length;
}

export function joinBody(body: Body): Buffer {
  if (body instanceof ProtobufBody) return Buffer.concat(body.chunks);
  return Array.isArray(body) ? Buffer.concat(body) : body;
}

const OPEN_ITEM = Buffer.from('{');
const NEXT_ITEM = Buffer.from(',{');

/** An object's bytes without kind and apiVersion (a slice when they lead, as stored objects do). */
export function withoutTypeMeta(bytes: Buffer, prefix: Buffer): Buffer {
  if (startsWith(bytes, prefix)) return Buffer.concat([OPEN_ITEM, bytes.subarray(prefix.length)]);
  const obj = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  delete obj['kind'];
  delete obj['apiVersion'];
  return Buffer.from(JSON.stringify(obj));
}

/** Whether `bytes` starts with `prefix` (compared in place: no slice made per item of a list). */
function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

/**
 * How a list holds its items: `typed` without their kind and apiVersion (a built-in's list, decoded
 * into Go types), `unstructured` as they are (a custom resource's list keeps each item's own).
 */
export type ListItems = 'typed' | 'unstructured';

/** The list as chunks that point into the items' own bytes: nothing is copied. */
export function encodeList(listKind: string, apiVersion: string, metadata: Record<string, unknown>, items: readonly Buffer[], itemKind: string, form: ListItems = 'typed'): Buffer[] {
  const chunks: Buffer[] = [Buffer.from(`{"kind":${JSON.stringify(listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`)];
  if (form === 'unstructured') {
    items.forEach((item, i) => {
      if (i > 0) chunks.push(COMMA);
      chunks.push(item);
    });
    chunks.push(CLOSE);
    return chunks;
  }
  const prefix = typePrefix(itemKind, apiVersion);
  items.forEach((item, i) => {
    if (startsWith(item, prefix)) {
      chunks.push(i > 0 ? NEXT_ITEM : OPEN_ITEM, item.subarray(prefix.length));
    } else {
      if (i > 0) chunks.push(COMMA);
      chunks.push(withoutTypeMeta(item, prefix));
    }
  });
  chunks.push(CLOSE);
  return chunks;
}
