// The transformations a client may ask for in Accept: PartialObjectMetadata (metadata-only objects
// and lists, for metadata informers) and Table (server-rendered columns, for kubectl get).
import type { ResourceInfo } from '../registry/definitions.js';
import { encodeList, ProtobufBody, type Body } from '../encoding/lists.js';
import { encodeProtobufListOfItems } from '../encoding/protobuf-encode.js';
import { badRequest } from '../errors.js';
import type { ObjectList } from '../registry/store.js';
import type { Negotiated } from './negotiation.js';
import { renderTable } from './table.js';

function metadataOnly(bytes: Buffer, apiVersion: string): Record<string, unknown> {
  const obj = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj['metadata'] ?? {} };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject') ?? 'Metadata';
  if (v !== 'None' && v !== 'Metadata' && v !== 'Object') {
    throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "None", "Metadata", "Object"`);
  }
  return v;
}

/** One object in the negotiated representation (JSON bytes; the caller serializes). */
export function renderObject(info: ResourceInfo, bytes: Buffer, n: Negotiated, query: URLSearchParams): Buffer {
  if (n.transform === 'PartialObjectMetadata') return Buffer.from(JSON.stringify(metadataOnly(bytes, n.transformVersion!)));
  if (n.transform === 'Table') return renderTable(info, [bytes], {}, includeObjectOf(query), n.transformVersion!);
  return bytes;
}

export function renderList(info: ResourceInfo, list: ObjectList, n: Negotiated, query: URLSearchParams): Body {
  if (n.transform === 'PartialObjectMetadataList') {
    const items = list.items.map((b) => metadataOnly(b, n.transformVersion!));
    return Buffer.from(JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: n.transformVersion, metadata: list.metadata, items }));
  }
  if (n.transform === 'Table') return renderTable(info, list.items, list.metadata, includeObjectOf(query), n.transformVersion!);
  if (n.format === 'protobuf') {
    // Already Protobuf (the serializer leaves a Protobuf body as it is).
    return new ProtobufBody(encodeProtobufListOfItems(info.listKind, info.apiVersion, list.metadata, info.kind, list.items, (b) => JSON.parse(b.toString('utf8')) as Record<string, unknown>));
  }
  return encodeList(info.listKind, info.apiVersion, list.metadata, list.items, info.kind);
}

/** A watch event's object in the negotiated representation. */
export function renderEventObject(info: ResourceInfo, bytes: Buffer, n: Negotiated, query: URLSearchParams): Buffer {
  return renderObject(info, bytes, n, query);
}
