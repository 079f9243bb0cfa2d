// The Table of a custom resource: Name, then the version's additionalPrinterColumns (Age when it
// declares none), each cell read by its JSONPath (the first value it finds, as the reference's cell) and
// typed as the column says.
import type { TableColumn, TablePrinter } from '../api/printers/index.js';
import { since } from '../api/printers/format.js';
import { isObject } from '../json.js';
import type { PrinterColumn } from './crd-object.js';
import { parseColumnPath, valuesAt } from './json-path.js';

const NAME_DESCRIPTION = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names';
const CREATION_TIMESTAMP_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const AGE: PrinterColumn = { name: 'Age', type: 'date', format: '', description: CREATION_TIMESTAMP_DESCRIPTION, priority: 0, jsonPath: '.metadata.creationTimestamp' };

/** A cell as the reference types it: numbers as numbers, dates as ages, strings as printed; null when absent or of another type. */
function cell(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value, now);
    case 'string':
      // JSONPath prints any value: strings as they are, others as JSON.
      return typeof value === 'string' ? value : isObject(value) || Array.isArray(value) ? JSON.stringify(value) : String(value);
    default:
      return null;
  }
}

export function printerFor(declared: readonly PrinterColumn[]): TablePrinter {
  const columns = declared.length ? declared : [AGE];
  const paths = columns.map((c) => parseColumnPath(c.jsonPath));
  return {
    columns: (): TableColumn[] => [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      ...columns.map((c) => ({
        name: c.name, type: c.type, format: c.format,
        description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`, priority: c.priority,
      })),
    ],
    cells: (obj, now) => {
      const meta = isObject(obj['metadata']) ? obj['metadata'] : {};
      return [meta['name'] ?? '', ...columns.map((c, i) => (paths[i] ? cell(c.type, valuesAt(obj, paths[i]!)[0], now) : null))];
    },
  };
}
