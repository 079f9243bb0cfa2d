// The one cache of what is made from a stored object version: the immutable JSON bytes the storage
// and the watch cache hold, one Buffer per version. Every other form is made from those bytes the
// first time a request needs it, then reused by every list, get and watcher. The cache is a WeakMap
// keyed by the bytes: a version that leaves the watch cache takes its derived forms with it.
//
// What is kept as long as the version is small or costly to make again: the Protobuf envelope with
// its message (one buffer; a list's item is a slice of it), where the metadata lies in the bytes
// (PartialObjectMetadata is the bytes' own metadata text in a wrapper), a Table row's cells as JSON
// with its ages left to fill in at each request's time, and its conditions.
// What is held weakly (shared until the next full garbage collection, then made again cheaply):
// the watch frames and PartialObjectMetadata documents, copies of bytes that are kept anyway.
// The parsed object, about twice the size of the bytes, is kept only while it is among the last
// few parsed: the watchers of one event, and the forms made of one version in turn, share it,
// and the parses of a list still die young.
import { type JsonObject, isObject } from '../json.js';
import { typePrefix } from './lists.js';
import { encodeProtobufEnveloped, encodeProtobufList, encodeProtobufWatchEventOfMessage, framedAsListItem, listItemHeaderLength, listItemOf } from './protobuf-encode.js';
import { readCopy } from './read-copy.js';
import { AGE_MARK, humanDuration, withAgesMarked } from '../api/printers/format.js';

/** How a Table prints a row: the resource's printer, handed in by the caller. */
export interface RowPrinter {
  /** The cells at time `now` (ms); must read the object the same way whatever `now` is. */
  cells(obj: JsonObject, now: number): unknown[];
  /** The row's conditions, which do not depend on the time. */
  conditions?(obj: JsonObject): readonly unknown[] | undefined;
}

/**
 * A row's cells as JSON text with their ages left out: `texts[0]`, the age since `ages[0]`,
 * `texts[1]`, … — ages are the only part of a row that depends on the time.
 */
export interface CellsTemplate {
  texts: string[];
  /** The times (ms) the ages count from. */
  ages: number[];
}

/** What a Table row keeps between requests: its cells with the ages to fill in, or (when the printer reads the time otherwise) what the printer reads. */
export interface RowData {
  template?: CellsTemplate;
  /** The part of the object the printer reads (see read-copy.ts), printed from at each request. */
  inputs?: JsonObject;
  /** The conditions as JSON, when there are any. */
  conditions: string | undefined;
}

interface ProtobufMessage {
  apiVersion: string;
  kind: string;
  /** The object in its envelope, as a get answers it. */
  envelope: Buffer;
  /** The message alone (a slice of the envelope), as a list holds it. */
  message: Buffer;
  /** Known to be the object's own kind and apiVersion. */
  own?: boolean;
}

interface Derived {
  jsonFrames?: Record<string, WeakRef<Buffer>>;
  protobuf?: ProtobufMessage;
  protobufFrames?: Record<string, WeakRef<Buffer>>;
  /** The metadata as JSON.stringify writes it: a slice of the bytes (or, when they hold it otherwise, a copy). */
  metadata?: Buffer;
  metadataDocuments?: Record<string, WeakRef<Buffer>>;
  /** Whether the bytes are exactly what JSON.stringify writes of the object; `restringified` when not. */
  canonical?: boolean;
  restringified?: Buffer;
  row?: RowData & { printer: RowPrinter };
  /** What readers (readOnce) read of the version, by reader. */
  reads?: Map<(obj: JsonObject) => unknown, unknown>;
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

/**
 * A copy in memory of its own. Small buffers share 8 KiB pool slabs with short-lived ones; a
 * buffer kept as long as a version would hold its whole slab.
 */
function unpooled(bytes: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

// ---- the parsed object ----

/** The last objects parsed, newest first. */
const recentlyParsed: Array<{ bytes: Buffer; obj: JsonObject }> = [];
const RECENT_PARSES = 4;

/**
 * The object the bytes hold. Shared by every caller: read it, never change it (the informers'
 * handlers are given it frozen, ObjectVersion.frozen).
 */
export function parsedObject(bytes: Buffer): JsonObject {
  for (const recent of recentlyParsed) if (recent.bytes === bytes) return recent.obj;
  const obj = JSON.parse(bytes.toString('utf8')) as JsonObject;
  recentlyParsed.unshift({ bytes, obj });
  if (recentlyParsed.length > RECENT_PARSES) recentlyParsed.pop();
  return obj;
}

// ---- what readers read of a version ----

/**
 * What `read` reads of the version, read once and kept with it: what label and field selectors
 * read (as the reference's watch cache keeps each object's labels and fields, so a selected list
 * parses no object it has read before), whether a namespace is being deleted. `read` must be one
 * function kept for the purpose (it is the key), not made per call.
 */
export function readOnce<T>(bytes: Buffer, read: (obj: JsonObject) => T): T {
  const d = entry(bytes);
  d.reads ??= new Map();
  if (d.reads.has(read)) return d.reads.get(read) as T;
  const value = read(parsedObject(bytes));
  d.reads.set(read, value);
  return value;
}

// ---- JSON ----

const FRAME_END = Buffer.from('}\n');

/** `{"type":T,"object":…}\n`, the JSON watch event, shared by every watcher sent it. */
export function jsonWatchFrame(type: string, bytes: Buffer): Buffer {
  const d = entry(bytes);
  return weakly((d.jsonFrames ??= {}), type, () => Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), bytes, FRAME_END]));
}

/** The object as JSON.stringify writes it: the bytes themselves when they are that already (as stored objects are). */
export function stringifiedObject(bytes: Buffer): Buffer {
  const d = entry(bytes);
  if (d.canonical === undefined) {
    const again = Buffer.from(JSON.stringify(parsedObject(bytes)));
    d.canonical = again.equals(bytes);
    if (!d.canonical) d.restringified = unpooled(again);
  }
  return d.canonical ? bytes : d.restringified!;
}

// ---- PartialObjectMetadata ----

/**
 * Annotations that exist only in the versioned object: the reference keeps these fields in its
 * internal types' spec (moved there by conversion), so metadata taken from the internal object —
 * PartialObjectMetadata, a Table row's object — does not have them.
 */
const VERSIONED_ONLY_ANNOTATIONS: Readonly<Record<string, string>> = {
  DaemonSet: 'deprecated.daemonset.template.generation',
  Deployment: 'deprecated.deployment.rollback.to',
};

/** The metadata as the reference's internal object has it. */
function internalMetadata(obj: JsonObject): unknown {
  const meta: unknown = obj['metadata'] ?? {};
  const annotation = typeof obj['kind'] === 'string' ? VERSIONED_ONLY_ANNOTATIONS[obj['kind']] : undefined;
  if (!annotation || !isObject(meta) || !isObject(meta['annotations']) || !(annotation in meta['annotations'])) return meta;
  const annotations = { ...meta['annotations'] };
  delete annotations[annotation];
  const copy: JsonObject = { ...meta, annotations };
  if (Object.keys(annotations).length === 0) delete copy['annotations'];
  return copy;
}

/** The object's metadata as JSON.stringify writes it ({} when it has none), as the internal object has it. */
function metadataJson(bytes: Buffer): Buffer {
  const d = entry(bytes);
  if (!d.metadata) {
    const obj = parsedObject(bytes);
    const text = Buffer.from(JSON.stringify(internalMetadata(obj)));
    d.metadata = metadataSlice(bytes, obj, text) ?? unpooled(text);
  }
  return d.metadata;
}

/** Stored objects are {"kind":…,"apiVersion":…,"metadata":{…},…}: their metadata text is already in the bytes. */
function metadataSlice(bytes: Buffer, obj: JsonObject, text: Buffer): Buffer | undefined {
  const { kind, apiVersion } = obj;
  if (typeof kind !== 'string' || typeof apiVersion !== 'string') return undefined;
  const prefix = prefixOf(kind, apiVersion);
  const at = prefix.length + METADATA_KEY.length;
  if (!startsWith(bytes, prefix) || !bytes.subarray(prefix.length, at).equals(METADATA_KEY)) return undefined;
  const slice = bytes.subarray(at, at + text.length);
  return slice.equals(text) ? slice : undefined;
}
const METADATA_KEY = Buffer.from('"metadata":');

const metadataHeads = new Map<string, Buffer>();

/**
 * PartialObjectMetadata of the given apiVersion (meta.k8s.io/v1 or v1beta1) as three chunks that
 * point into kept bytes: `{"kind":"PartialObjectMetadata","apiVersion":V,"metadata":`, the
 * metadata, `}`. Lists and Table rows are written from these without copying.
 */
export function partialObjectMetadataChunks(bytes: Buffer, apiVersion: string): [Buffer, Buffer, Buffer] {
  let head = metadataHeads.get(apiVersion);
  if (!head) {
    head = Buffer.from(`{"kind":"PartialObjectMetadata","apiVersion":${JSON.stringify(apiVersion)},"metadata":`);
    metadataHeads.set(apiVersion, head);
  }
  return [head, metadataJson(bytes), OBJECT_END];
}
const OBJECT_END = Buffer.from('}');

/** The object as one PartialObjectMetadata document, shared by every watcher sent it. */
export function partialObjectMetadata(bytes: Buffer, apiVersion: string): Buffer {
  const d = entry(bytes);
  return weakly((d.metadataDocuments ??= {}), apiVersion, () => Buffer.concat(partialObjectMetadataChunks(bytes, apiVersion)));
}

// ---- Protobuf ----

/** The object's Protobuf message (no envelope) as the given kind of the given apiVersion: what a list holds per item. */
export function protobufMessage(bytes: Buffer, apiVersion: string, kind: string): Buffer {
  const d = entry(bytes);
  const made = d.protobuf;
  if (made && made.apiVersion === apiVersion && made.kind === kind) return made.message;
  d.protobuf = { apiVersion, kind, ...encodeProtobufEnveloped(apiVersion, kind, parsedObject(bytes)) };
  return d.protobuf.message;
}

/**
 * The object as a Protobuf list holds it: its `items` entry (tag, length, message). The envelope
 * kept with the version frames its message the same way (runtime.Unknown's raw is field 2 too), so
 * this is a slice of it: a list is written from these without copying a message.
 */
export function protobufListItem(bytes: Buffer, apiVersion: string, kind: string): Buffer {
  const d = entry(bytes);
  if (d.protobuf?.apiVersion !== apiVersion || d.protobuf.kind !== kind) protobufMessage(bytes, apiVersion, kind);
  const { envelope, message } = d.protobuf!;
  const at = message.byteOffset - envelope.byteOffset;
  if (message.buffer === envelope.buffer && framedAsListItem(envelope, at, message.length)) {
    return envelope.subarray(at - listItemHeaderLength(message.length), at + message.length);
  }
  return listItemOf(message);
}

/** The message as the object's own kind and apiVersion (an envelope and a watch event name them). */
function ownProtobuf(bytes: Buffer): ProtobufMessage {
  const d = entry(bytes);
  const made = d.protobuf;
  if (made?.own) return made;
  // Stored objects start with their kind and apiVersion: no parse to see that the message made fits.
  if (made && startsWith(bytes, prefixOf(made.kind, made.apiVersion))) {
    made.own = true;
    return made;
  }
  const obj = parsedObject(bytes);
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  protobufMessage(bytes, apiVersion, kind);
  d.protobuf!.own = true;
  return d.protobuf!;
}

/**
 * The Protobuf document of a JSON one: an object in its envelope (magic + runtime.Unknown), kept
 * with the version. A list document (a list answered as one buffer, not a stored version) is encoded
 * whole each time.
 */
export function protobufObject(bytes: Buffer): Buffer {
  const made = entry(bytes).protobuf;
  if (made?.own) return made.envelope;
  if (!made) {
    const obj = parsedObject(bytes);
    const kind = obj['kind'];
    if (Array.isArray(obj['items']) && typeof kind === 'string' && kind.endsWith('List')) {
      return encodeProtobufList(kind, String(obj['apiVersion']), (obj['metadata'] ?? {}) as JsonObject, obj['items'] as JsonObject[]);
    }
  }
  return ownProtobuf(bytes).envelope;
}

/** A Protobuf watch event frame (length, then WatchEvent), shared by every watcher sent it. */
export function protobufWatchFrame(type: string, bytes: Buffer): Buffer {
  const d = entry(bytes);
  return weakly((d.protobufFrames ??= {}), type, () => {
    const own = ownProtobuf(bytes);
    return encodeProtobufWatchEventOfMessage(type, own.apiVersion, own.kind, own.message);
  });
}

// ---- Table ----

/** A Table row's kept data for this printer: made once per version (and printer), its cells written from it at each request. */
export function tableRowData(bytes: Buffer, printer: RowPrinter): RowData {
  const d = entry(bytes);
  if (d.row?.printer === printer) return d.row;
  const obj = parsedObject(bytes);
  const conditions = printer.conditions?.(obj);
  const row: RowData & { printer: RowPrinter } = { printer, conditions: conditions && conditions.length ? JSON.stringify(conditions) : undefined };
  const template = cellsTemplate(bytes, obj, printer);
  if (template) row.template = template;
  else row.inputs = readCopy(obj, (view) => printer.cells(view, Date.now())).copy;
  d.row = row;
  return row;
}

/** The row's cells at time `now` (ms), as JSON: what JSON.stringify writes of the printer's cells. */
export function tableRowCells(row: RowData, printer: RowPrinter, now: number): string {
  const template = row.template;
  if (!template) return JSON.stringify(printer.cells(row.inputs!, now));
  const { texts, ages } = template;
  let json = texts[0]!;
  for (let i = 0; i < ages.length; i++) json += humanDuration(now - ages[i]!) + texts[i + 1]!;
  return json;
}

/** Far enough ahead that every age printed then differs from the same age now. */
const FAR_AHEAD_MS = 1000 * 365 * 86_400_000;

/** The mark as the bytes may hold it: UTF-8, or escaped. */
const MARKS_IN_JSON = [Buffer.from(AGE_MARK), Buffer.from('\\ue000'), Buffer.from('\\uE000')];

/**
 * The cells with their ages marked, when they depend on the time through their ages alone: printed
 * now and a thousand years ahead, the two must be the same text with the same marks. Undefined when
 * they are not (the printer reads the time otherwise), or when the object itself holds the mark.
 */
function cellsTemplate(bytes: Buffer, obj: JsonObject, printer: RowPrinter): CellsTemplate | undefined {
  if (MARKS_IN_JSON.some((mark) => bytes.includes(mark))) return undefined;
  const now = Date.now();
  const first = withAgesMarked(() => JSON.stringify(printer.cells(obj, now)));
  const again = withAgesMarked(() => JSON.stringify(printer.cells(obj, now + FAR_AHEAD_MS)));
  if (first.result !== again.result || first.ages.length !== again.ages.length || first.ages.some((t, i) => t !== again.ages[i])) return undefined;
  const pieces = first.result.split(AGE_MARK);
  const texts: string[] = [];
  const ages: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    if (i % 2 === 0) {
      texts.push(pieces[i]!);
      continue;
    }
    const at = Number(pieces[i]);
    if (!/^\d+$/.test(pieces[i]!) || at >= first.ages.length) return undefined;
    ages.push(first.ages[at]!);
  }
  return texts.length === ages.length + 1 ? { texts, ages } : undefined;
}

// ---- helpers ----

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
