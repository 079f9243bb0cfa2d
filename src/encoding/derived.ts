// The one cache of what is made from a stored object version: the immutable JSON bytes the storage
// and the watch cache hold, one Buffer per version. Every other form is made from those bytes the
// first time a request needs it, then reused by every list, get and watcher. The cache is a WeakMap
// keyed by the bytes: a version that leaves the watch cache takes its derived forms with it.
//
// Kept as long as the version (each costs a parse to make): the Protobuf message, the
// PartialObjectMetadata per apiVersion, a Table row's printer inputs and conditions.
// Held weakly (shared until the next full garbage collection, then made again): the parsed object,
// about twice the size of the bytes, and the watch frames, copies of bytes that are kept anyway.
import type { JsonObject } from '../json.js';
import { typePrefix } from './lists.js';
import { encodeProtobufEnvelope, encodeProtobufList, encodeProtobufRaw, encodeProtobufWatchEventOfMessage } from './protobuf-encode.js';
import { readCopy } from './read-copy.js';

/** How a Table prints a row: the resource's printer, handed in by the caller. */
export interface RowPrinter {
  /** The cells at time `now` (ms); must read the object the same way whatever `now` is. */
  cells(obj: JsonObject, now: number): unknown[];
  /** The row's conditions, which do not depend on the time. */
  conditions(obj: JsonObject): readonly unknown[] | undefined;
}

/** What a Table row keeps between requests; its cells are printed from `inputs` at each request's time. */
export interface RowData {
  /** The part of the object the printer reads (see read-copy.ts). */
  inputs: JsonObject;
  /** The conditions as JSON, when there are any. */
  conditions: string | undefined;
}

interface ProtobufMessage {
  apiVersion: string;
  kind: string;
  message: Buffer;
}

interface Derived {
  jsonFrames?: Record<string, WeakRef<Buffer>>;
  protobuf?: ProtobufMessage;
  protobufFrames?: Record<string, WeakRef<Buffer>>;
  metadata?: Record<string, Buffer>;
  /** The object as JSON.stringify writes it, when the bytes are not already exactly that. */
  restringified?: Buffer;
  canonical?: boolean;
  row?: RowData & { printer: RowPrinter };
}

const derived = new WeakMap<Buffer, Derived>();

function entry(bytes: Buffer): Derived {
  let d = derived.get(bytes);
  if (!d) {
    d = {};
    derived.set(bytes, d);
  }
  return d;
}

function weakly<T extends object>(slots: Record<string, WeakRef<T>>, key: string, make: () => T): T {
  const kept = slots[key]?.deref();
  if (kept) return kept;
  const made = make();
  slots[key] = new WeakRef(made);
  return made;
}

/** The last objects parsed, newest first. */
const recentlyParsed: Array<{ bytes: Buffer; obj: JsonObject }> = [];
const RECENT_PARSES = 4;

/** The object the bytes hold. Shared by every caller: read it, never change it. */
export function parsedObject(bytes: Buffer): JsonObject {
  for (const recent of recentlyParsed) if (recent.bytes === bytes) return recent.obj;
  const obj = JSON.parse(bytes.toString('utf8')) as JsonObject;
  recentlyParsed.unshift({ bytes, obj });
  if (recentlyParsed.length > RECENT_PARSES) recentlyParsed.pop();
  return obj;
}

const FRAME_END = Buffer.from('}\n');

/** `{"type":T,"object":…}\n`, the JSON watch event, shared by every watcher sent it. */
export function jsonWatchFrame(type: string, bytes: Buffer): Buffer {
  const d = entry(bytes);
  return weakly((d.jsonFrames ??= {}), type, () => Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), bytes, FRAME_END]));
}

/** The object's Protobuf message (no envelope) as the given kind of the given apiVersion: what a list holds per item. */
export function protobufMessage(bytes: Buffer, apiVersion: string, kind: string): Buffer {
  const d = entry(bytes);
  const made = d.protobuf;
  if (made && made.apiVersion === apiVersion && made.kind === kind) return made.message;
  d.protobuf = { apiVersion, kind, message: encodeProtobufRaw(apiVersion, kind, parsedObject(bytes)) };
  return d.protobuf.message;
}

/** The message as the object's own kind and apiVersion (an envelope and a watch event name them). */
function ownProtobuf(bytes: Buffer): ProtobufMessage {
  const made = entry(bytes).protobuf;
  // Stored objects start with their kind and apiVersion: no parse to see that the message made fits.
  if (made && startsWith(bytes, prefixOf(made.kind, made.apiVersion))) return made;
  const obj = parsedObject(bytes);
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  protobufMessage(bytes, apiVersion, kind);
  return entry(bytes).protobuf!;
}

/**
 * The Protobuf document of a JSON one: an object in its envelope (magic + runtime.Unknown), from the
 * kept message. A list document (a list answered as one buffer, not a stored version) is encoded
 * whole each time.
 */
export function protobufObject(bytes: Buffer): Buffer {
  const made = entry(bytes).protobuf;
  if (!made) {
    const obj = parsedObject(bytes);
    const kind = obj['kind'];
    if (Array.isArray(obj['items']) && typeof kind === 'string' && kind.endsWith('List')) {
      return encodeProtobufList(kind, String(obj['apiVersion']), (obj['metadata'] ?? {}) as JsonObject, obj['items'] as JsonObject[]);
    }
  }
  const own = ownProtobuf(bytes);
  return encodeProtobufEnvelope(own.apiVersion, own.kind, own.message);
}

/** A Protobuf watch event frame (length, then WatchEvent), shared by every watcher sent it. */
export function protobufWatchFrame(type: string, bytes: Buffer): Buffer {
  const d = entry(bytes);
  return weakly((d.protobufFrames ??= {}), type, () => {
    const own = ownProtobuf(bytes);
    return encodeProtobufWatchEventOfMessage(type, own.apiVersion, own.kind, own.message);
  });
}

/** The object as PartialObjectMetadata of the given apiVersion (meta.k8s.io/v1 or v1beta1): its metadata only. */
export function partialObjectMetadata(bytes: Buffer, apiVersion: string): Buffer {
  const d = entry(bytes);
  const byVersion = (d.metadata ??= {});
  let made = byVersion[apiVersion];
  if (!made) {
    made = Buffer.from(JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion, metadata: parsedObject(bytes)['metadata'] ?? {} }));
    byVersion[apiVersion] = made;
  }
  return made;
}

/** The object as JSON.stringify writes it: the bytes themselves when they are that already (as stored objects are). */
export function stringifiedObject(bytes: Buffer): Buffer {
  const d = entry(bytes);
  if (d.canonical === undefined) {
    const again = Buffer.from(JSON.stringify(parsedObject(bytes)));
    d.canonical = again.equals(bytes);
    if (!d.canonical) d.restringified = again;
  }
  return d.canonical ? bytes : d.restringified!;
}

/** A Table row's kept data for this printer: made once per version (and printer), printed from at each request. */
export function tableRowData(bytes: Buffer, printer: RowPrinter): RowData {
  const d = entry(bytes);
  if (d.row?.printer === printer) return d.row;
  const obj = parsedObject(bytes);
  const { copy } = readCopy(obj, (view) => printer.cells(view, Date.now()));
  const conditions = printer.conditions(obj);
  d.row = { printer, inputs: copy, conditions: conditions && conditions.length ? JSON.stringify(conditions) : undefined };
  return d.row;
}

const prefixes = new Map<string, Buffer>();

/** `{"kind":K,"apiVersion":V,`, one buffer per kind and version. */
function prefixOf(kind: string, apiVersion: string): Buffer {
  const key = `${apiVersion}/${kind}`;
  let prefix = prefixes.get(key);
  if (!prefix) {
    prefix = typePrefix(kind, apiVersion);
    prefixes.set(key, prefix);
  }
  return prefix;
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}
