// Server-rendered Table (meta.k8s.io Table) for gets, lists and watch events: the resource's
// printer, handed to the Table encoding.
import type { ResourceInfo } from '../api/catalog.js';
import { cellsFor, columnsFor, rowConditionsFor } from '../api/printers/index.js';
import { encodeTable, type IncludeObject, type TablePrinter } from '../encoding/table.js';

const printers = new Map<string, TablePrinter>();

/** The resource's printer, one object per resource (rows are kept per printer). */
function printerOf(info: ResourceInfo): TablePrinter {
  const key = `${info.group}/${info.resource}`;
  let printer = printers.get(key);
  if (!printer) {
    const { group, resource } = info;
    printer = {
      columns: () => columnsFor(group, resource),
      cells: (obj, now) => cellsFor(group, resource, obj, now),
      conditions: (obj) => rowConditionsFor(group, resource, obj),
    };
    printers.set(key, printer);
  }
  return printer;
}

/** The Table of the items as JSON chunks; `listMeta` is {} for a single object. */
export function renderTable(info: ResourceInfo, items: readonly Buffer[], listMeta: Record<string, unknown>, include: IncludeObject, apiVersion: string): Buffer[] {
  return encodeTable(items, printerOf(info), { apiVersion, metadata: listMeta, include, now: Date.now() });
}
