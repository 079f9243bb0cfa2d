// Server-rendered Table (meta.k8s.io Table) for gets, lists and watch events.
import type { ResourceInfo, TablePrinter } from '../registry/definitions.js';
import { defaultTablePrinter } from '../api/printers/index.js';

import type { IncludeObject } from './representations.js';

export function renderTable(info: ResourceInfo, items: readonly Buffer[], listMeta: Record<string, unknown>, include: IncludeObject, apiVersion: string): Buffer {
  const now = Date.now();
  const printer: TablePrinter = info.definition.hooks.table ?? defaultTablePrinter;
  const rows = items.map((bytes) => {
    const obj = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    let object: unknown = null;
    if (include === 'Object') object = obj;
    else if (include === 'Metadata') object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj['metadata'] ?? {} };
    const conditions = printer.conditions?.(obj);
    return conditions && conditions.length ? { cells: printer.cells(obj, now), conditions, object } : { cells: printer.cells(obj, now), object };
  });
  let metadata = listMeta;
  if (listMeta['resourceVersion'] === undefined && items.length === 1) {
    const meta = (JSON.parse(items[0]!.toString('utf8')) as { metadata?: { resourceVersion?: string } }).metadata;
    metadata = { resourceVersion: meta?.resourceVersion };
  }
  return Buffer.from(JSON.stringify({ kind: 'Table', apiVersion, metadata, columnDefinitions: printer.columns(), rows }));
}
