// resource.Quantity: the fixed-point numbers of resource requests, limits and quotas ("100m",
// "1Gi", "1.5", "1e3"), parsed, compared, added and written back as the reference does.
//
// A value is held exactly as a BigInt count of nano units (10^-9): the reference rounds every
// parsed value up to that precision, so sums and differences stay exact. The format (decimal SI
// suffixes, binary suffixes, or a decimal exponent) is remembered from the text and used again
// when the value is written. Written text is canonical (largest suffix, no fraction: "1.5" →
// "1500m", "1.5Gi" → "1536Mi", "1000m" → "1"), except that the reference keeps the text it parsed
// when that text already looked canonical to its fast path ("100m", "1Gi", "+1", "1e3" stay as
// given); arithmetic results are always canonical.
//
// This is the only quantity implementation: decoding, validation, admission and quota all use it.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The reference's parse errors (their messages are what validation reports). */
export const QUANTITY_FORMAT_ERROR = `quantities must match the regular expression '${SPLIT_RE}'`;
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityError extends Error {}

/** The reference's int64Amount (value × 10^scale): what its parser's fast path holds. */
export interface Int64Amount {
  value: bigint;
  scale: number;
}

const NANO = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
/** The largest value a BinarySI quantity parses to (the reference caps there). */
const MAX_BINARY_NANOS = MAX_INT64 * NANO;
/**
 * A parsed value whose decimal exponent, counted from nanos, passes this is refused (with the
 * numeric error) rather than expanded digit by digit: the reference holds "1e2000000000" as a
 * scaled int64, but as a nano count it would not fit.
 */
const MAX_EXPONENT = 10_000;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_OF = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_SUFFIX_OF = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));
const SUFFIX_CHARS = new Set('eEinumkKMGTP');

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** Division rounding away from zero (the reference's rounding for values and scales). */
function divideUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  if (q * d === n) return q;
  return n < 0n ? q - 1n : q + 1n;
}

interface Scanned {
  positive: boolean;
  /** Digits before the point, leading zeros stripped ("0" when none are left). */
  num: string;
  /** Digits after the point. */
  denom: string;
  suffix: string;
}

/** The reference's scanner: sign, digits, optional fraction, then a suffix of suffix letters, a sign and digits. */
function scan(text: string): Scanned {
  let pos = 0;
  let positive = true;
  if (text[0] === '-') {
    positive = false;
    pos++;
  } else if (text[0] === '+') {
    pos++;
  }
  while (text[pos] === '0') pos++;
  if (pos >= text.length) return { positive, num: '0', denom: '', suffix: '' };
  const numStart = pos;
  while (isDigit(text[pos])) pos++;
  const num = text.slice(numStart, pos) || '0';
  let denom = '';
  if (text[pos] === '.') {
    const denomStart = ++pos;
    while (isDigit(text[pos])) pos++;
    denom = text.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && SUFFIX_CHARS.has(text[pos]!)) pos++;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  while (isDigit(text[pos])) pos++;
  if (pos < text.length) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  return { positive, num, denom, suffix: text.slice(suffixStart) };
}

interface Suffix {
  base: 10 | 2;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): Suffix {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const parsed = BigInt(suffix.slice(1));
    // A 64-bit integer, used as a 32-bit one (as the reference converts it).
    if (parsed >= -(1n << 63n) && parsed <= MAX_INT64) return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  throw new QuantityError(QUANTITY_SUFFIX_ERROR);
}

export class Quantity {
  private constructor(
    /** The value in nano units (10^-9). */
    readonly nanos: bigint,
    readonly format: QuantityFormat,
    /** The parsed text, when the reference keeps it (and writes it back unchanged). */
    readonly text?: string,
    /** The reference's int64Amount, for a value its fast path parsed (Go's %#v shows it). */
    readonly amount?: Int64Amount,
  ) {}

  /** Parses a quantity; throws QuantityError with the reference's message. */
  static parse(text: string): Quantity {
    if (text.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
    if (text === '0') return new Quantity(0n, 'DecimalSI', text, { value: 0n, scale: 0 });
    const { positive, num, denom, suffix } = scan(text);
    const { base, exponent, format } = interpretSuffix(suffix);
    const parsed = fastPath(text, positive, num, denom, base, exponent, format) ?? slowPath(positive, num, denom, base, exponent, format);
    return new Quantity(parsed.nanos, parsed.format, parsed.text, parsed.amount);
  }

  /** A quantity from a JSON value (a string, or a number as the reference's decoder also takes); undefined when it is neither or does not parse. */
  static from(value: unknown): Quantity | undefined {
    let text: string;
    if (typeof value === 'string') text = value.trim();
    else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    else return undefined;
    try {
      return Quantity.parse(text);
    } catch (err) {
      if (err instanceof QuantityError) return undefined;
      throw err;
    }
  }

  /** An integer amount (resource.NewQuantity). */
  static of(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value) * NANO, format);
  }

  /** An amount in thousandths (resource.NewMilliQuantity). */
  static ofMilli(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value) * 1_000_000n, format);
  }

  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, format);
  }

  /** The text the reference writes for this quantity. */
  toString(): string {
    return this.text ?? this.canonical();
  }

  toJSON(): string {
    return this.toString();
  }

  /** The canonical text, whatever text was parsed. */
  canonical(): string {
    if (this.nanos === 0n) return '0';
    const sign = this.nanos < 0n ? '-' : '';
    const magnitude = abs(this.nanos);
    if (this.format === 'BinarySI' && magnitude >= 1024n * NANO && magnitude % NANO === 0n) {
      let n = magnitude / NANO;
      let exponent = 0;
      while (n >= 1024n && n % 1024n === 0n) {
        n /= 1024n;
        exponent += 10;
      }
      return `${sign}${n}${BINARY_SUFFIX_OF.get(exponent) ?? ''}`;
    }
    // Decimal: all factors of ten go to the exponent, which is then lowered to a multiple of three.
    // (Trailing zeros are stripped as text: a value may have thousands of them.)
    const digits = magnitude.toString();
    const significant = digits.replace(/0+$/, '');
    const exponent = -9 + digits.length - significant.length;
    const lowered = Math.floor(exponent / 3) * 3;
    const mantissa = significant + '0'.repeat(exponent - lowered);
    const format = this.format === 'DecimalExponent' ? 'DecimalExponent' : 'DecimalSI';
    // A decimal SI value beyond the largest suffix loses its exponent, as the reference writes it ("1000E" → "1").
    const suffix = format === 'DecimalExponent' ? (lowered === 0 ? '' : `e${lowered}`) : DECIMAL_SUFFIX_OF.get(lowered) ?? '';
    return `${sign}${mantissa}${suffix}`;
  }

  /** this + other; a zero takes the other's format (as the reference's Add). */
  add(other: Quantity): Quantity {
    return new Quantity(this.nanos + other.nanos, this.nanos === 0n ? other.format : this.format);
  }

  /** this - other; a zero takes the other's format (as the reference's Sub). */
  sub(other: Quantity): Quantity {
    return new Quantity(this.nanos - other.nanos, this.nanos === 0n ? other.format : this.format);
  }

  neg(): Quantity {
    return new Quantity(-this.nanos, this.format);
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  /** Whether the value is whole, as the reference's validation tests it (MilliValue() % 1000 == 0). */
  isInteger(): boolean {
    return this.milliValue() % 1000n === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.nanos < 0n ? -1 : this.nanos > 0n ? 1 : 0;
  }

  /** The value in whole units, rounded away from zero (the reference's Value()). */
  value(): bigint {
    return divideUp(this.nanos, NANO);
  }

  /** The value in thousandths, rounded away from zero (the reference's MilliValue()). */
  milliValue(): bigint {
    return divideUp(this.nanos, 1_000_000n);
  }

  /** Rounded (away from zero) to thousandths; a quantity already that precise is returned as it is (RoundUp(-3)). */
  roundUpToMilli(): Quantity {
    if (this.nanos % 1_000_000n === 0n) return this;
    return new Quantity(this.milliValue() * 1_000_000n, this.format);
  }

  /** Rounded (away from zero) to whole units; an integral quantity is returned as it is (RoundUp(0)). */
  roundUpToInteger(): Quantity {
    if (this.nanos % NANO === 0n) return this;
    return new Quantity(this.value() * NANO, this.format);
  }
}

/**
 * The error the reference's JSON decoder gives for a quantity's text (it trims the text first), or
 * undefined when the text parses.
 */
export function quantityError(text: string): string | undefined {
  try {
    Quantity.parse(text.trim());
    return undefined;
  } catch (err) {
    if (err instanceof QuantityError) return err.message;
    throw err;
  }
}

interface Parsed {
  nanos: bigint;
  format: QuantityFormat;
  /** The parsed text, when it is written back unchanged. */
  text?: string;
  amount?: Int64Amount;
}

/** Refuses a value whose exponent, counted from nanos, passes MAX_EXPONENT. */
function checkRange(toNano: number): void {
  if (toNano > MAX_EXPONENT) throw new QuantityError(QUANTITY_NUMERIC_ERROR);
}

/**
 * The reference's int64 fast path: short numbers at nano precision or coarser. It keeps the parsed
 * text when its checks say the text is already canonical (they are cheap, and not exact: "1.500" is kept).
 */
function fastPath(text: string, positive: boolean, num: string, denom: string, base: 10 | 2, exponent: number, format: QuantityFormat): Parsed | undefined {
  let precision: number;
  let scale: number;
  let shift = 0;
  if (base === 10) {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  } else {
    scale = 0;
    if (denom.length !== 0) return undefined;
    shift = exponent;
    precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < -9) return undefined;
  checkRange(scale + 9);
  const shifted = num + denom;
  const value = BigInt(shifted);
  const result = value << BigInt(shift);
  if (result > MAX_INT64) return undefined;
  const amount = { value: positive ? result : -result, scale };
  const keepText = base === 2
    ? (value & 7n) !== 0n
    : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  return { nanos: amount.value * pow10(scale + 9), format, text: keepText ? text : undefined, amount };
}

/** Exact decimal arithmetic for everything else, rounded up (away from zero) to nano precision. */
function slowPath(positive: boolean, num: string, denom: string, base: 10 | 2, exponent: number, format: QuantityFormat): Parsed {
  let digits = BigInt(num + denom);
  let scale = -denom.length; // the value is digits × 10^scale
  if (base === 2) digits <<= BigInt(exponent);
  else scale += exponent;
  const toNano = scale + 9;
  checkRange(toNano);
  let nanos: bigint;
  if (toNano >= 0) nanos = digits * pow10(toNano);
  else if (-toNano > digits.toString().length) nanos = digits === 0n ? 0n : 1n;
  else nanos = divideUp(digits, pow10(-toNano));
  let fmt = format;
  if (fmt === 'BinarySI' && nanos > MAX_BINARY_NANOS) nanos = MAX_BINARY_NANOS;
  if (fmt === 'BinarySI' && nanos > 0n && nanos < NANO) fmt = 'DecimalSI';
  return { nanos: positive ? nanos : -nanos, format: fmt };
}
