// Resource quantities, as much of them as validation needs: the reference's syntax, a sign, a
// numeric comparison and the canonical text its messages print. Kept in one module so that the
// full quantity implementation (src/api/quantity.ts) can replace it.

/** The reference's quantity grammar (resource.ParseQuantity), anchored. */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const QUANTITY_FORMAT_ERROR = `quantities must match the regular expression '${QUANTITY_PATTERN}'`;

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact value: mantissa × 10^scale. */
export interface Quantity {
  mantissa: bigint;
  scale: number;
  format: Format;
}

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

const QUANTITY_ERRORS = {
  format: QUANTITY_FORMAT_ERROR,
  numeric: 'unable to parse numeric part of quantity',
  suffix: "unable to parse quantity's suffix",
};

interface Parts {
  negative: boolean;
  whole: string;
  frac: string;
  suffix: string;
}

/** resource.parseQuantityString: sign, digits, fraction, suffix; or which error the reference gives. */
function splitQuantity(text: string): Parts | keyof typeof QUANTITY_ERRORS {
  if (text === '') return 'format';
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/s.exec(text)!;
  const [, sign = '', whole = '', frac = '', rest = ''] = m;
  // The suffix: letters of the SI and binary suffixes, then an optional signed exponent.
  if (!/^[eEinumkKMGTP]*[-+]?\d*$/.test(rest)) return 'format';
  return { negative: sign === '-', whole, frac, suffix: rest };
}

/** The reference's decoding error for a quantity, or undefined when it parses. */
export function quantityError(input: unknown): string | undefined {
  if (typeof input === 'number') return Number.isFinite(input) ? undefined : QUANTITY_ERRORS.format;
  if (typeof input !== 'string') return undefined;
  const parts = splitQuantity(input.trim());
  if (typeof parts === 'string') return QUANTITY_ERRORS[parts];
  if (!(parts.suffix in DECIMAL_SUFFIX) && !(parts.suffix in BINARY_SUFFIX) && !/^[eE][-+]?\d+$/.test(parts.suffix)) return QUANTITY_ERRORS.suffix;
  return undefined;
}

/** Parses a quantity (string or JSON number); undefined when the reference would refuse it. */
export function parseQuantity(input: unknown): Quantity | undefined {
  const text = typeof input === 'number' ? String(input) : typeof input === 'string' ? input.trim() : undefined;
  if (text === undefined || quantityError(text) !== undefined) return undefined;
  const parts = splitQuantity(text) as Parts;
  const { whole, frac, suffix } = parts;
  let mantissa = BigInt(`${whole}${frac}` || '0');
  let scale = -frac.length;
  let format: Format;
  if (suffix in DECIMAL_SUFFIX) {
    scale += DECIMAL_SUFFIX[suffix]!;
    format = 'DecimalSI';
  } else if (suffix in BINARY_SUFFIX) {
    mantissa *= 1024n ** BigInt(BINARY_SUFFIX[suffix]!);
    format = 'BinarySI';
  } else {
    scale += Number(suffix.slice(1));
    format = 'DecimalExponent';
  }
  // The reference keeps nano precision, rounding anything finer up (away from zero).
  if (scale < -9) {
    const divisor = 10n ** BigInt(-9 - scale);
    mantissa = (mantissa + divisor - 1n) / divisor;
    scale = -9;
  }
  return { mantissa: parts.negative ? -mantissa : mantissa, scale, format };
}

export const isQuantity = (input: unknown): boolean => parseQuantity(input) !== undefined;

function aligned(a: Quantity, b: Quantity): [bigint, bigint] {
  const s = Math.min(a.scale, b.scale);
  return [a.mantissa * 10n ** BigInt(a.scale - s), b.mantissa * 10n ** BigInt(b.scale - s)];
}

/** -1, 0 or 1, as Quantity.Cmp. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isNegative = (q: Quantity): boolean => q.mantissa < 0n;
export const isZero = (q: Quantity): boolean => q.mantissa === 0n;
/** Whether the value is a whole number (MilliValue divisible by 1000). */
export const isInteger = (q: Quantity): boolean => q.scale >= 0 || q.mantissa % 10n ** BigInt(-q.scale) === 0n;

/** Quantity.String(): the canonical text (e.g. "0.5" → "500m", "1024Mi" → "1Gi", "1000" → "1k"). */
export function canonicalQuantity(q: Quantity): string {
  const sign = q.mantissa < 0n ? '-' : '';
  let mantissa = q.mantissa < 0n ? -q.mantissa : q.mantissa;
  if (mantissa === 0n) return '0';
  if (q.format === 'BinarySI') {
    // Whole values of at least 1024 print with the largest exact power-of-1024 suffix.
    const divisor = q.scale < 0 ? 10n ** BigInt(-q.scale) : 1n;
    const value = q.scale >= 0 ? mantissa * 10n ** BigInt(q.scale) : mantissa / divisor;
    if (mantissa % divisor === 0n && value >= 1024n) {
      let n = value;
      let exp = 0;
      while (n % 1024n === 0n && exp < 6) {
        n /= 1024n;
        exp++;
      }
      return `${sign}${n}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][exp]}`;
    }
  }
  let scale = q.scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const shift = ((scale % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(shift);
  scale -= shift;
  if (q.format === 'DecimalExponent') return `${sign}${mantissa}${scale === 0 ? '' : `e${scale}`}`;
  const suffix = Object.entries(DECIMAL_SUFFIX).find(([, e]) => e === scale)?.[0];
  return suffix === undefined ? `${sign}${mantissa}e${scale}` : `${sign}${mantissa}${suffix}`;
}

/** The canonical text of a valid quantity, or the input as given. */
export function quantityText(input: unknown): string {
  const q = parseQuantity(input);
  return q ? canonicalQuantity(q) : String(input);
}
