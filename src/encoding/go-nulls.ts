// What the reference's decoder makes of a JSON null inside a built-in object: a struct field
// set to null is left at its zero value (omitted when written back: every optional field is a
// pointer, map, slice or `omitempty`), and a null item of a list or value of a map becomes the
// item type's zero value — `containers: [null]` is one empty container, `data: {a: null}` is
// `a: ""`. Lists and maps of anything (interface{}, RawExtension) keep their nulls.
import { isObject, type JsonObject } from '../json.js';
import type { GoType } from './go-types.js';

/** The zero value a null item of this type decodes to; undefined where it stays null. */
function zeroOf(type: GoType): unknown {
  switch (type.kind) {
    case 'struct': return {};
    case 'string': return '';
    case 'bool': return false;
    case 'int': case 'float': case 'intOrString': return 0;
    case 'quantity': return '0';
    default: return undefined;
  }
}

function settleItems(items: unknown[], type: GoType): void {
  for (let i = 0; i < items.length; i++) {
    if (items[i] === null) {
      const zero = zeroOf(type);
      if (zero !== undefined) items[i] = zero;
    } else settleNulls(items[i], type);
  }
}

/** Settles the nulls of a decoded value of `type` in place, as above. */
export function settleNulls(value: unknown, type: GoType): void {
  switch (type.kind) {
    case 'struct':
      if (!isObject(value)) return;
      for (const key of Object.keys(value)) {
        const child = value[key];
        const field = type.field(key);
        if (child === null) {
          if (field !== undefined) delete (value as JsonObject)[key];
        } else if (field !== undefined) settleNulls(child, field);
      }
      return;
    case 'slice':
      if (Array.isArray(value)) settleItems(value, type.elem());
      return;
    case 'map': {
      if (!isObject(value)) return;
      const item = type.elem();
      for (const key of Object.keys(value)) {
        const child = value[key];
        if (child === null) {
          const zero = zeroOf(item);
          if (zero !== undefined) value[key] = zero;
        } else settleNulls(child, item);
      }
      return;
    }
    default:
      return;
  }
}
