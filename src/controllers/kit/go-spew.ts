// A pod template printed as the reference's hash printer prints the Go value v1.PodTemplateSpec:
// go-spew's `%#v` with sorted map keys and methods disabled. Every struct field is written as
// `Name:(type)value` in Go declaration order; slice elements and map entries go without types;
// nil pointers, slices and maps are `<nil>`. The Go layout (field order, type names, pointers)
// comes from data/pod-template-layout.json, read from the reference's Go source.
//
// The JSON is read as the controller-manager's informer holds the stored object: it was decoded
// from protobuf, so an empty list or map is nil, and a pointer to an empty struct is not.
import { readDataJson } from '../../api/data.js';
import { isObject, type JsonObject } from '../../json.js';

interface LayoutField {
  name: string;
  type: string;
  json?: string;
  inline?: boolean;
}
interface LayoutType {
  go: string;
  kind: string;
  fields?: LayoutField[];
  of?: string;
}
interface Layout {
  root: string;
  types: Record<string, LayoutType>;
}

/** A template holding a value this printer cannot reproduce exactly (a set timestamp, managed fields, a huge quantity). */
export class UnprintableValue extends Error {}

let layout: Layout | undefined;
function types(): Record<string, LayoutType> {
  layout ??= readDataJson<Layout>('pod-template-layout.json');
  return layout.types;
}

/** The Go spelling of a type expression of the layout, as reflect's Type.String gives it. */
function goName(expr: string): string {
  if (expr.startsWith('*')) return '*' + goName(expr.slice(1));
  if (expr.startsWith('[]')) return '[]' + goName(expr.slice(2));
  if (expr.startsWith('map[')) {
    const close = expr.indexOf(']');
    return `map[${goName(expr.slice(4, close))}]${goName(expr.slice(close + 1))}`;
  }
  if (expr === 'byte') return 'uint8';
  return types()[expr]?.go ?? expr;
}

/** Go's string order (bytes), which is not JavaScript's (UTF-16 units) beyond the BMP. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

class Printer {
  readonly out: string[] = [];

  /** Prints `value` as Go type `expr`; `typed` is false inside slices and maps, where spew omits the type. */
  value(expr: string, value: unknown, typed: boolean): void {
    if (expr.startsWith('*')) return this.pointer(expr, value, typed);
    if (typed) this.out.push(`(${goName(expr)})`);
    this.bare(expr, value);
  }

  private pointer(expr: string, value: unknown, typed: boolean): void {
    if (value === undefined || value === null) {
      this.out.push(typed ? `(${goName(expr)})<nil>` : '<nil>');
      return;
    }
    this.out.push(typed ? `(${goName(expr)})` : '<*>');
    this.bare(expr.slice(1), value);
  }

  private bare(expr: string, value: unknown): void {
    if (expr.startsWith('[]')) return this.slice(expr.slice(2), value);
    if (expr.startsWith('map[')) return this.map(expr, value);
    switch (expr) {
      case 'string':
        this.out.push(typeof value === 'string' ? value : '');
        return;
      case 'bool':
        this.out.push(value === true ? 'true' : 'false');
        return;
      case 'int':
      case 'int32':
      case 'int64':
      case 'uint64':
      case 'byte':
        this.out.push(String(typeof value === 'number' ? value : 0));
        return;
      case 'resource.Quantity':
        return this.quantity(value);
      case 'intstr.IntOrString':
        return this.intOrString(value);
      case 'meta.Time':
        if (value !== undefined && value !== null) throw new UnprintableValue('a set timestamp in the template');
        this.out.push('{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}');
        return;
      case 'meta.FieldsV1':
        throw new UnprintableValue('managed fields in the template');
    }
    const t = types()[expr];
    if (!t) throw new UnprintableValue(`type ${expr} is not in the layout`);
    if (t.kind === 'struct') return this.struct(t, isObject(value) ? value : {});
    if (t.of) return this.bare(t.of, value);
    return this.bare(t.kind, value);
  }

  private slice(elem: string, value: unknown): void {
    if (!Array.isArray(value) || value.length === 0) {
      this.out.push('<nil>');
      return;
    }
    this.out.push('[');
    value.forEach((v, i) => {
      if (i > 0) this.out.push(' ');
      this.value(elem, v, false);
    });
    this.out.push(']');
  }

  private map(expr: string, value: unknown): void {
    const close = expr.indexOf(']');
    const keyType = expr.slice(4, close);
    const valueType = expr.slice(close + 1);
    const keys = isObject(value) ? Object.keys(value).filter((k) => value[k] !== undefined) : [];
    if (!isObject(value) || keys.length === 0) {
      this.out.push('<nil>');
      return;
    }
    this.out.push('map[');
    keys.sort(byteOrder).forEach((k, i) => {
      if (i > 0) this.out.push(' ');
      this.value(keyType, k, false);
      this.out.push(':');
      this.value(valueType, value[k], false);
    });
    this.out.push(']');
  }

  private struct(t: LayoutType, value: JsonObject): void {
    this.out.push('{');
    (t.fields ?? []).forEach((f, i) => {
      if (i > 0) this.out.push(' ');
      this.out.push(f.name + ':');
      this.value(f.type, f.inline ? value : f.json !== undefined ? value[f.json] : undefined, true);
    });
    this.out.push('}');
  }

  private quantity(value: unknown): void {
    const q = parseQuantity(typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '');
    this.out.push(
      `{i:(resource.int64Amount){value:(int64)${q.value} scale:(resource.Scale)${q.scale}} ` +
        `d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)${q.cached} Format:(resource.Format)${q.format}}`,
    );
  }

  private intOrString(value: unknown): void {
    const [type, int, str] = typeof value === 'string' ? [1, 0, value] : [0, typeof value === 'number' ? value : 0, ''];
    this.out.push(`{Type:(intstr.Type)${type} IntVal:(int32)${int} StrVal:(string)${str}}`);
  }
}

/** The text go-spew writes for the template (a pod template as JSON, as stored). */
export function spewPodTemplate(template: JsonObject): string {
  const p = new Printer();
  p.value('core.PodTemplateSpec', template, true);
  return p.out.join('');
}

interface ParsedQuantity {
  value: bigint;
  scale: number;
  /** The string kept in the Quantity when the input was already canonical, else empty. */
  cached: string;
  format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
}

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const INT64_MAX = (1n << 63n) - 1n;

/**
 * The int64 form the reference's quantity parser gives a quantity string, with its cached string.
 * Values it keeps as arbitrary-precision decimals (beyond int64 or 10^18, Pi and Ei) are not printed.
 */
export function parseQuantity(text: string): ParsedQuantity {
  if (text === '0') return { value: 0n, scale: 0, cached: '0', format: 'DecimalSI' };
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[-+]?\d*)$/.exec(text);
  if (!m) throw new UnprintableValue(`quantity ${text}`);
  const positive = m[1] !== '-';
  const num = m[2] === '' ? '0' : m[2];
  const denom = m[3] ?? '';
  const suffix = m[4];
  let format: ParsedQuantity['format'];
  let exponent: number;
  if (suffix in DECIMAL_SUFFIXES) [format, exponent] = ['DecimalSI', DECIMAL_SUFFIXES[suffix]];
  else if (suffix in BINARY_SUFFIXES) [format, exponent] = ['BinarySI', BINARY_SUFFIXES[suffix]];
  else if (/^[eE][-+]?\d+$/.test(suffix)) [format, exponent] = ['DecimalExponent', Number(suffix.slice(1))];
  else throw new UnprintableValue(`quantity ${text}`);

  let scale: number;
  let precision: number;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    scale = 0;
    if (denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const parsed = BigInt(shifted);
      const product = parsed * mantissa;
      if (parsed <= INT64_MAX && product <= INT64_MAX) {
        const value = positive ? product : -product;
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (parsed & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { value, scale, cached: canonical ? text : '', format };
      }
    }
  }
  throw new UnprintableValue(`quantity ${text} is kept as a decimal of arbitrary precision`);
}
