// Server-rendered Table (meta.k8s.io Table) for gets, lists and watch events: the resource's
// printer, handed to the Table encoding.
import { defaultTablePrinter, type TablePrinter } from '../api/printers/index.js';
import { encodeTable, type IncludeObject } from '../encoding/table.js';
import type { ResourceInfo } from '../registry/definitions.js';

/** Custom resources print through the reference's custom resource convertor, whose empty Table has `rows: []`. */
const customResourcePrinter: TablePrinter = { ...defaultTablePrinter, nullWhenEmpty: false };

/** The Table of the items as JSON chunks; `listMeta` is {} for a single object. */
export function renderTable(info: ResourceInfo, items: readonly Buffer[], listMeta: Record<string, unknown>, include: IncludeObject, apiVersion: string): Buffer[] {
  const printer = info.definition.hooks.table ?? (info.definition.builtin ? defaultTablePrinter : customResourcePrinter);
  return encodeTable(items, printer, { apiVersion, metadata: listMeta, include, now: Date.now() });
}
