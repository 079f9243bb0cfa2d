// Go's %#v rendering of the few structured values the reference puts in field errors (label
// selectors, string lists and maps, IntOrString, byte slices). Values are given as JSON.
import { formatValue } from '../../errors.js';
import type { Quantity } from '../quantity.js';
import { isObject } from '../../json.js';

type Renderer = (v: unknown) => string;

const quote = (s: string): string => JSON.stringify(s);

function stringSlice(v: unknown, type = '[]string'): string {
  if (!Array.isArray(v)) return `${type}(nil)`;
  return `${type}{${v.map((s) => quote(String(s))).join(', ')}}`;
}

/** fmt prints map entries sorted by key. */
function stringMap(v: unknown, type = 'map[string]string'): string {
  if (!isObject(v)) return `${type}(nil)`;
  const keys = Object.keys(v).sort();
  return `${type}{${keys.map((k) => `${quote(k)}:${quote(String(v[k]))}`).join(', ')}}`;
}

function labelSelectorRequirement(r: unknown): string {
  const o = isObject(r) ? r : {};
  return `v1.LabelSelectorRequirement{Key:${quote(String(o['key'] ?? ''))}, Operator:${quote(String(o['operator'] ?? ''))}, Values:${stringSlice(o['values'])}}`;
}

function labelSelector(v: unknown): string {
  const o = isObject(v) ? v : {};
  const exprs = Array.isArray(o['matchExpressions'])
    ? `[]v1.LabelSelectorRequirement{${(o['matchExpressions'] as unknown[]).map(labelSelectorRequirement).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${stringMap(o['matchLabels'])}, MatchExpressions:${exprs}}`;
}

export function intOrString(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${quote(v)}}`;
  return `intstr.IntOrString{Type:0, IntVal:${typeof v === 'number' ? v : 0}, StrVal:""}`;
}

/** []byte{0x2d, 0x2d, ...} as %#v prints a byte slice. */
export function byteSlice(bytes: Uint8Array): string {
  return `[]byte{${Array.from(bytes, (b) => `0x${b.toString(16)}`).join(', ')}}`;
}

type QuantityField = [string, string | Array<[string, bigint | number]>];

/**
 * The non-zero fields of a resource.Quantity as cmp shows them: the int64Amount of ParseQuantity's
 * fast path (none after its exact slow path), the text it kept, and the format.
 */
export function quantityInternals(q: Quantity | undefined): QuantityField[] {
  if (!q) return [];
  const amount: Array<[string, bigint | number]> = [];
  if (q.amount?.value) amount.push(['value', q.amount.value]);
  if (q.amount?.scale) amount.push(['scale', q.amount.scale]);
  const fields: QuantityField[] = [];
  if (amount.length) fields.push(['i', amount]);
  if (q.text) fields.push(['s', q.text]);
  fields.push(['Format', q.format]);
  return fields;
}

/** %#v of a resource.Quantity (all fields, zero ones too) once its String() has run, which caches the text. */
export function goQuantity(q: Quantity): string {
  const { value, scale } = q.amount ?? { value: 0n, scale: 0 };
  return `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${quote(q.toString())}, Format:${quote(q.format)}}`;
}

const RENDERERS: Record<string, Renderer> = {
  labelSelector,
  stringSlice: (v) => stringSlice(v),
  stringMap: (v) => stringMap(v),
  intOrString,
};

export type GoType = keyof typeof RENDERERS;

/**
 * A value as the reference's field errors print it: strings quoted, numbers and booleans bare, nil
 * pointers as null; structured values in Go syntax when their Go type is named, else as JSON.
 */
export function goValue(v: unknown, type?: string): string {
  if (type && RENDERERS[type]) return RENDERERS[type](v);
  return formatValue(v);
}

export { stringMap as goStringMap, stringSlice as goStringSlice, labelSelector as goLabelSelector };
