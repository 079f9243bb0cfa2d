// Exact comparison of resource quantities ("1Gi", "500m", "1e3"), as the reference's Quantity.Cmp.
// Only what the plugins need; the full quantity type (canonical forms, arithmetic) lives elsewhere.

interface Fraction {
  num: bigint;
  den: bigint;
}

const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;
const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** The quantity as an exact fraction, or undefined when it is not a quantity. */
function parse(text: string): Fraction | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign, whole = '', fraction = '', suffix = ''] = m;
  if (!whole && !fraction) return undefined;
  let num = BigInt(`${whole}${fraction}` || '0');
  let den = 10n ** BigInt(fraction.length);
  if (sign === '-') num = -num;
  let exponent = 0;
  if (suffix in BINARY) num *= BINARY[suffix]!;
  else if (suffix in DECIMAL) exponent = DECIMAL[suffix]!;
  else exponent = Number(suffix.slice(1));
  if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den *= 10n ** BigInt(-exponent);
  return { num, den };
}

function fractionOf(value: unknown): Fraction | undefined {
  if (typeof value === 'number') return parse(String(value));
  return typeof value === 'string' ? parse(value) : undefined;
}

/** -1, 0 or 1 as a is less than, equal to or greater than b; a value that is no quantity counts as 0. */
export function compareQuantities(a: unknown, b: unknown): number {
  const x = fractionOf(a) ?? { num: 0n, den: 1n };
  const y = fractionOf(b) ?? { num: 0n, den: 1n };
  const left = x.num * y.den;
  const right = y.num * x.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Whether two resource lists hold the same names with equal quantities (the reference's semantic equality). */
export function sameResourceList(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => b !== undefined && k in b && compareQuantities(a![k], b[k]) === 0);
}
