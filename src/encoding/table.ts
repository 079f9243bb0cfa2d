// The Table representation (meta.k8s.io Table) of stored objects, written as JSON chunks: per row,
// the cells kept with the version, their ages filled in at the request's time, then the row's object
// (none, its PartialObjectMetadata, or the whole object) as bytes kept by the derived cache.
// Byte for byte what JSON.stringify writes of {kind, apiVersion, metadata, columnDefinitions, rows}.
import type { TablePrinter } from '../api/printers/index.js';
import type { JsonObject } from '../json.js';
import { parsedObject, partialObjectMetadataChunks, stringifiedObject, tableRowCells, tableRowData } from './derived.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export type { TablePrinter };

export interface TableOptions {
  /** meta.k8s.io/v1 or v1beta1. */
  apiVersion: string;
  /** The list's metadata; for a single object, {} (its resourceVersion is taken). */
  metadata: JsonObject;
  include: IncludeObject;
  /** The time ages are computed at (ms). */
  now: number;
}

/** The version of the PartialObjectMetadata a row carries, whatever the Table's own version. */
const ROW_METADATA_VERSION = 'meta.k8s.io/v1';

const SMALL = 128;

/** Text and buffers appended in order; text (and small buffers) gathered into one buffer between big ones. */
class Chunks {
  readonly chunks: Buffer[] = [];
  private text = '';

  write(text: string): void {
    this.text += text;
  }

  /** The text of the last small buffer written: every row writes the same PartialObjectMetadata head. */
  private lastSmall: { bytes: Buffer; text: string } | undefined;

  bytes(bytes: Buffer): void {
    if (bytes.length < SMALL) {
      if (this.lastSmall?.bytes !== bytes) this.lastSmall = { bytes, text: bytes.toString('utf8') };
      this.text += this.lastSmall.text;
      return;
    }
    this.flush();
    this.chunks.push(bytes);
  }

  end(): Buffer[] {
    this.flush();
    return this.chunks;
  }

  private flush(): void {
    if (this.text === '') return;
    this.chunks.push(Buffer.from(this.text));
    this.text = '';
  }
}

function rowObject(bytes: Buffer, include: IncludeObject): readonly Buffer[] | undefined {
  if (include === 'Metadata') return partialObjectMetadataChunks(bytes, ROW_METADATA_VERSION);
  if (include === 'Object') return [stringifiedObject(bytes)];
  return undefined;
}

export function encodeTable(items: readonly Buffer[], printer: TablePrinter, options: TableOptions): Buffer[] {
  let metadata = options.metadata;
  if (metadata['resourceVersion'] === undefined && items.length === 1) {
    const meta = parsedObject(items[0]!)['metadata'] as { resourceVersion?: string } | undefined;
    metadata = { resourceVersion: meta?.resourceVersion };
  }
  const nullRows = items.length === 0 && printer.nullWhenEmpty === true;
  const out = new Chunks();
  out.write(`{"kind":"Table","apiVersion":${JSON.stringify(options.apiVersion)},"metadata":${JSON.stringify(metadata)},"columnDefinitions":${JSON.stringify(printer.columns())},"rows":`);
  if (!nullRows) out.write('[');
  items.forEach((bytes, i) => {
    const row = tableRowData(bytes, printer);
    out.write(`${i > 0 ? ',' : ''}{"cells":${tableRowCells(row, printer, options.now)}`);
    if (row.conditions !== undefined) out.write(`,"conditions":${row.conditions}`);
    out.write(',"object":');
    const object = rowObject(bytes, options.include);
    if (object) for (const chunk of object) out.bytes(chunk);
    else out.write('null');
    out.write('}');
  });
  out.write(nullRows ? 'null}' : ']}');
  return out.end();
}
