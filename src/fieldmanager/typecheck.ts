// The checks server-side apply makes when it turns the applied configuration into a typed
// value (structured-merge-diff's validation): fields the schema does not declare, and values
// of the wrong JSON type, with SMD's messages (".spec.replicas: expected numeric (int or
// float), got string"), refused whatever fieldValidation says ("failed to create typed patch
// object"): a 500 in the reference, which is no fault of the server's, so a 400 here.
import { goSyntax, goValue } from '../encoding/go-format.js';
import { fieldPE, indexPE, pathString } from './pathset.js';
import type { SchemaNode } from '../api/schema.js';
import { itemPE } from './typed.js';
import { isObject } from '../json.js';

/** Go's %T of a decoded JSON value. */
function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** SMD's scalar kinds: integers and numbers are "numeric"; strings with a format are untyped. */
function scalarError(node: SchemaNode, v: unknown): string | undefined {
  const wrapped = `&{${goValue(v)}}`;
  switch (node.scalarType) {
    case 'integer': case 'number':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goTypeName(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got ${wrapped}`;
    case 'string':
      if (node.format === undefined || node.format === 'byte') {
        return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goSyntax(v)}}`;
      }
      break;
    default:
  }
  return typeof v === 'object' ? `expected any scalar, got ${wrapped}` : undefined;
}

function walk(v: unknown, node: SchemaNode, path: string[], out: string[]): void {
  if (v === null || v === undefined) return;
  const at = () => pathString(path);
  switch (node.kind) {
    case 'struct': case 'map': {
      if (!isObject(v)) {
        out.push(`${at()}: expected map, got &{${goValue(v)}}`);
        return;
      }
      for (const [k, c] of Object.entries(v)) {
        const child = node.field(k);
        path.push(fieldPE(k));
        if (!child) {
          // SMD stops walking a map at its first undeclared field.
          out.push(`${at()}: field not declared in schema`);
          path.pop();
          return;
        }
        walk(c, child, path, out);
        path.pop();
      }
      return;
    }
    case 'list': {
      if (!Array.isArray(v)) {
        out.push(`${at()}: expected list, got &{${goValue(v)}}`);
        return;
      }
      const item = node.items();
      v.forEach((c, i) => {
        path.push(node.atomic ? indexPE(i) : itemPE(node, c, i));
        walk(c, item, path, out);
        path.pop();
      });
      return;
    }
    case 'scalar': {
      const err = scalarError(node, v);
      if (err) out.push(`${at()}: ${err}`);
      return;
    }
    default:
  }
}

/** SMD's validation errors of an applied object, in document order ("" when it is valid). */
export function typedPatchError(applied: unknown, schema: SchemaNode): string {
  const out: string[] = [];
  walk(applied, schema, [], out);
  if (out.length <= 1) return out[0] ?? '';
  return ['errors:', ...out.map((e) => `  ${e}`)].join('\n');
}
