// Go's %#v rendering of the few structured values the reference puts in field errors (label
// selectors, string lists and maps, IntOrString, byte slices). Values are given as JSON.
import { formatValue } from '../../errors.js';

type Renderer = (v: unknown) => string;

const quote = (s: string): string => JSON.stringify(s);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringSlice(v: unknown, type = '[]string'): string {
  if (!Array.isArray(v)) return `${type}(nil)`;
  return `${type}{${v.map((s) => quote(String(s))).join(', ')}}`;
}

/** fmt prints map entries sorted by key. */
function stringMap(v: unknown, type = 'map[string]string'): string {
  if (!isObj(v)) return `${type}(nil)`;
  const keys = Object.keys(v).sort();
  return `${type}{${keys.map((k) => `${quote(k)}:${quote(String(v[k]))}`).join(', ')}}`;
}

function labelSelectorRequirement(r: unknown): string {
  const o = isObj(r) ? r : {};
  return `v1.LabelSelectorRequirement{Key:${quote(String(o['key'] ?? ''))}, Operator:${quote(String(o['operator'] ?? ''))}, Values:${stringSlice(o['values'])}}`;
}

function labelSelector(v: unknown): string {
  const o = isObj(v) ? v : {};
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

type QuantityField = [string, string | number | Array<[string, number]>];

/**
 * The non-zero fields of a resource.Quantity as ParseQuantity's fast path builds it: the int64
 * amount (value, scale), the cached text when the input was canonical, and the format.
 */
export function quantityInternals(text: string): QuantityField[] {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[-+]?\d*)$/.exec(text.trim());
  if (!m || text.trim() === '') return [];
  const [, sign, num = '', denom = '', suffix = ''] = m;
  const decimal: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  const binary: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
  let format = 'DecimalSI';
  let exponent = 0;
  if (suffix in decimal) exponent = decimal[suffix]!;
  else if (suffix in binary) {
    format = 'BinarySI';
    exponent = binary[suffix]!;
  } else {
    format = 'DecimalExponent';
    exponent = Number(suffix.slice(1));
  }
  const shifted = `${num}${denom}`;
  const scale = (format === 'BinarySI' ? 0 : exponent) - denom.length;
  const digits = BigInt(shifted || '0');
  const value = digits * (format === 'BinarySI' ? 1n << BigInt(exponent) : 1n) * (sign === '-' ? -1n : 1n);
  const canonical = format === 'BinarySI'
    ? exponent % 10 === 0 && (digits & 7n) !== 0n
    : scale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
  const amount: Array<[string, number]> = [];
  if (value !== 0n) amount.push(['value', Number(value)]);
  if (scale !== 0) amount.push(['scale', scale]);
  const fields: QuantityField[] = [];
  if (amount.length) fields.push(['i', amount]);
  if (canonical) fields.push(['s', text.trim()]);
  fields.push(['Format', format]);
  return fields;
}

/** %#v of a resource.Quantity (all fields, zero ones too). */
export function goQuantity(text: string): string {
  const fields = new Map(quantityInternals(text));
  const amount = new Map((fields.get('i') as Array<[string, number]> | undefined) ?? []);
  const s = (fields.get('s') as string | undefined) ?? '';
  return `resource.Quantity{i:resource.int64Amount{value:${amount.get('value') ?? 0}, scale:${amount.get('scale') ?? 0}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${quote(s)}, Format:${quote(String(fields.get('Format') ?? ''))}}`;
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
