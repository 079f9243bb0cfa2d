// The transformations a client may ask for in Accept: PartialObjectMetadata (metadata-only objects
// and lists, for metadata informers) and Table (server-rendered columns, for kubectl get). Every
// derived form of a stored version comes from the derived cache (encoding/derived.ts).
import type { ResourceInfo } from '../registry/definitions.js';
import { partialObjectMetadata, partialObjectMetadataChunks, protobufListItem } from '../encoding/derived.js';
import { encodeList, ProtobufBody, type Body } from '../encoding/lists.js';
import { encodeProtobufListOfItems } from '../encoding/protobuf-encode.js';
import type { IncludeObject } from '../encoding/table.js';
import { badRequest } from '../errors.js';
import type { ObjectList } from '../registry/store.js';
import type { Negotiated } from './negotiation.js';
import { renderTable } from './table.js';

export type { IncludeObject } from '../encoding/table.js';

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject') ?? 'Metadata';
  if (v !== 'None' && v !== 'Metadata' && v !== 'Object') {
    throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "None", "Metadata", "Object"`);
  }
  return v;
}

/** One object in the negotiated representation (JSON bytes; the caller serializes). */
export function renderObject(info: ResourceInfo, bytes: Buffer, n: Negotiated, query: URLSearchParams): Buffer {
  if (n.transform === 'PartialObjectMetadata') return partialObjectMetadata(bytes, n.transformVersion!);
  if (n.transform === 'Table') return Buffer.concat(renderTable(info, [bytes], {}, includeObjectOf(query), n.transformVersion!));
  return bytes;
}

const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}');

export function renderList(info: ResourceInfo, list: ObjectList, n: Negotiated, query: URLSearchParams): Body {
  if (n.transform === 'PartialObjectMetadataList') {
    const chunks: Buffer[] = [Buffer.from(`{"kind":"PartialObjectMetadataList","apiVersion":${JSON.stringify(n.transformVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`)];
    list.items.forEach((bytes, i) => {
      if (i > 0) chunks.push(COMMA);
      chunks.push(...partialObjectMetadataChunks(bytes, n.transformVersion!));
    });
    chunks.push(LIST_END);
    return chunks;
  }
  if (n.transform === 'Table') return renderTable(info, list.items, list.metadata, includeObjectOf(query), n.transformVersion!);
  if (n.format === 'protobuf') {
    // Already Protobuf (the serializer leaves a Protobuf body as it is), in pieces kept with each version.
    const items = list.items.map((bytes) => protobufListItem(bytes, info.apiVersion, info.kind));
    return new ProtobufBody(encodeProtobufListOfItems(info.listKind, info.apiVersion, list.metadata, items));
  }
  // Built-ins' lists are typed (items without kind and apiVersion); others' unstructured, as the reference's.
  return encodeList(info.listKind, info.apiVersion, list.metadata, list.items, info.kind, info.definition.builtin ? 'typed' : 'unstructured');
}

/** A watch event's object in the negotiated representation. */
export function renderEventObject(info: ResourceInfo, bytes: Buffer, n: Negotiated, query: URLSearchParams): Buffer {
  return renderObject(info, bytes, n, query);
}
