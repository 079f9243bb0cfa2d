// Go's fmt renderings of decoded JSON values (map[string]interface{}, []interface{}, float64,
// int64, string, bool, nil), as the reference prints them inside error messages.

/** %v of a float64: shortest digits, exponent form below 1e-4 and from 1e+06 up (strconv 'g', -1). */
export function goFloat(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${exp < 0 ? '-' : '+'}${digits}`;
  }
  return String(v);
}

/**
 * %v of a decoded value. `int64`: integral numbers were decoded as int64 (the reference's
 * case-sensitive, int-preserving JSON decoding) rather than float64.
 */
export function goValue(v: unknown, int64 = false): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return int64 && Number.isInteger(v) ? String(v) : goFloat(v);
  if (Array.isArray(v)) return `[${v.map((x) => goValue(x, int64)).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goValue(o[k], int64)}`).join(' ')}]`;
  }
  return String(v);
}

/** %#v of a decoded value held in an interface{} (float64 numbers). */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return goFloat(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[string]interface {}{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${goSyntax(o[k])}`).join(', ')}}`;
  }
  return String(v);
}

/** reflect.Kind names of decoded values (int64 for integral numbers when `int64`). */
export function goKind(v: unknown, int64 = false): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return int64 && Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return 'slice';
  return 'map';
}
