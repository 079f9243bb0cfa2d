// One linear pass over a JSON text, decoding it "into" a Go type the way the reference's
// strict JSON decoder does, to learn what that decoder reports:
//   - strict errors, in document order: `unknown field "spec.foo"` (a key a struct does not
//     declare; its value is skipped unchecked) and `duplicate field "spec.replicas"` (a key
//     seen twice in one object — JSON.parse keeps the last silently);
//   - the decode error, if any: Go's UnmarshalTypeError text (`json: cannot unmarshal string
//     into Go struct field DeploymentSpec.spec.replicas of type int32`, the first one met), or
//     the error of a type's own UnmarshalJSON (quantities, times), which stops decoding.
// The text must already be known to be valid JSON (JSON.parse accepted it).
import { quantityError } from '../api/quantity.js';
import { goQuote } from '../errors.js';
import { wellFormed } from '../json.js';
import { ANY, type GoType } from './go-types.js';
import { base64Error, RFC3339, RFC3339_MICRO, timeError } from './go-scalars.js';

export interface StrictDecodeResult {
  /** `unknown field "…"` / `duplicate field "…"`, deduplicated, at most 100 (as the reference keeps). */
  strict: string[];
  /** Where the unknown fields are (object keys and list indexes), to drop them: decoding does. */
  unknownPaths: Array<Array<string | number>>;
  /** The error the decode fails with; strict errors do not count when there is one. */
  error?: string;
}

const MAX_STRICT_ERRORS = 100;

/** An error returned (not saved) by the reference's decoder: decoding stops there. */
class Abort extends Error {}

const enum C {
  Quote = 0x22, Comma = 0x2c, Minus = 0x2d, Colon = 0x3a, LBracket = 0x5b, Backslash = 0x5c,
  RBracket = 0x5d, LBrace = 0x7b, RBrace = 0x7d, Space = 0x20, Tab = 0x09, LF = 0x0a, CR = 0x0d,
}

const INT_RANGES: Record<number, [bigint, bigint]> = {
  32: [-(2n ** 31n), 2n ** 31n - 1n],
  64: [-(2n ** 63n), 2n ** 63n - 1n],
};

class Decoder {
  private i = 0;
  readonly strict: string[] = [];
  readonly unknownPaths: Array<Array<string | number>> = [];
  private readonly seen = new Set<string>();
  /** The reference's strict path: keys (joined by ".") and list indexes (as "[i]"). */
  private readonly path: Array<string | number> = [];
  /** Go's error context: the struct field names down to here, and the innermost struct. */
  private readonly fields: string[] = [];
  private struct = '';
  error?: string;

  constructor(private readonly text: string, private readonly collectStrict: boolean) {}

  run(target: GoType): void {
    this.ws();
    try {
      this.value(target);
    } catch (err) {
      if (!(err instanceof Abort)) throw err;
      this.error = err.message;
    }
  }

  // ---- errors ----

  private strictError(what: 'unknown' | 'duplicate', key: string): void {
    if (!this.collectStrict || this.strict.length >= MAX_STRICT_ERRORS) return;
    let p = '';
    for (let n = 0; n < this.path.length; n++) {
      const seg = this.path[n]!;
      p += typeof seg === 'number' ? `[${seg}]` : n === 0 ? seg : `.${seg}`;
    }
    p += this.path.length ? `.${key}` : key;
    // strconv.Quote, as the reference's decoder words it (printable characters as they are).
    const message = `${what} field ${goQuote(p)}`;
    if (this.seen.has(message)) return;
    this.seen.add(message);
    this.strict.push(message);
  }

  /** UnmarshalTypeError text, with the struct context as Go adds it. */
  private typeError(value: string, type: string): string {
    if (this.struct !== '' || this.fields.length) {
      return `json: cannot unmarshal ${value} into Go struct field ${this.struct}.${this.fields.join('.')} of type ${type}`;
    }
    return `json: cannot unmarshal ${value} into Go value of type ${type}`;
  }

  /** A saved error: the first one wins, decoding goes on. */
  private save(message: string): void {
    this.error ??= message;
  }

  // ---- scanning (the text is valid JSON) ----

  private ws(): void {
    const t = this.text;
    let i = this.i;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === C.Space || c === C.LF || c === C.CR || c === C.Tab) i++;
      else break;
    }
    this.i = i;
  }

  /** The end (after the closing quote) of the string starting at `start`. */
  private stringEnd(start: number): number {
    const t = this.text;
    let j = start + 1;
    for (;;) {
      const q = t.indexOf('"', j);
      let b = q - 1;
      while (t.charCodeAt(b) === C.Backslash) b--;
      if ((q - 1 - b) % 2 === 0) return q + 1;
      j = q + 1;
    }
  }

  /** The string token at the cursor, unescaped; the cursor moves past it. */
  private readString(): string {
    const start = this.i;
    const end = this.stringEnd(start);
    this.i = end;
    const raw = this.text.slice(start + 1, end - 1);
    return raw.includes('\\') ? wellFormed(JSON.parse(this.text.slice(start, end)) as string) : raw;
  }

  /** Skips any value at the cursor. */
  private skip(): void {
    const t = this.text;
    let depth = 0;
    do {
      const c = t.charCodeAt(this.i);
      if (c === C.Quote) this.i = this.stringEnd(this.i);
      else {
        if (c === C.LBrace || c === C.LBracket) depth++;
        else if (c === C.RBrace || c === C.RBracket) depth--;
        this.i++;
        if (depth === 0 && c !== C.LBrace && c !== C.LBracket && c !== C.RBrace && c !== C.RBracket) {
          // A literal: read to its end.
          while (this.i < t.length && !isDelimiter(t.charCodeAt(this.i))) this.i++;
          return;
        }
      }
      if (depth > 0) this.ws();
    } while (depth > 0);
  }

  /** The raw text of the value at the cursor (skipped). */
  private rawValue(): string {
    const start = this.i;
    this.skip();
    return this.text.slice(start, this.i);
  }

  // ---- decoding ----

  private value(t: GoType): void {
    const c = this.text.charCodeAt(this.i);
    if (c === C.LBrace) this.object(t);
    else if (c === C.LBracket) this.array(t);
    else this.literal(t);
  }

  /** An object or array where the target takes something else: skipped, or the decoder's error. */
  private mismatched(t: GoType, found: 'object' | 'array'): void {
    switch (t.kind) {
      case 'raw':
        this.skip();
        return;
      case 'quantity':
        return this.quantity();
      case 'intOrString':
        this.skip();
        throw new Abort(this.typeError(found, 'int32'));
      case 'time':
        this.skip();
        throw new Abort(this.typeError(found, 'string'));
      default:
        this.save(this.typeError(found, t.name));
        this.skip();
    }
  }

  private object(t: GoType): void {
    if (t.kind !== 'struct' && t.kind !== 'map' && t.kind !== 'any') return this.mismatched(t, 'object');
    const isStruct = t.kind === 'struct';
    const collect = this.collectStrict;
    const keys = new SeenKeys();
    const struct = this.struct;
    this.i++;
    this.ws();
    if (this.text.charCodeAt(this.i) === C.RBrace) {
      this.i++;
      return;
    }
    for (;;) {
      const key = this.readString();
      this.ws();
      this.i++; // ':'
      this.ws();
      const child = isStruct ? t.field(key) : t.kind === 'any' ? ANY : t.elem();
      if (child === undefined) {
        // Unknown to the struct: reported, and its value skipped unchecked.
        this.unknownPaths.push([...this.path, key]);
        this.strictError('unknown', key);
        this.skip();
      } else {
        if (collect && keys.seen(key)) this.strictError('duplicate', key);
        if (isStruct) {
          this.fields.push(key);
          this.struct = t.structName!;
        }
        this.path.push(key);
        this.value(child);
        this.path.pop();
        if (isStruct) {
          this.fields.pop();
          this.struct = struct;
        }
      }
      this.ws();
      const c = this.text.charCodeAt(this.i++);
      if (c === C.RBrace) return;
      this.ws();
    }
  }

  private array(t: GoType): void {
    let item: GoType;
    switch (t.kind) {
      case 'slice': case 'any':
        item = t.kind === 'any' ? ANY : t.elem();
        break;
      case 'bytes':
        item = BYTE;
        break;
      default:
        return this.mismatched(t, 'array');
    }
    this.i++;
    this.ws();
    if (this.text.charCodeAt(this.i) === C.RBracket) {
      this.i++;
      return;
    }
    for (let index = 0; ; index++) {
      this.path.push(index);
      this.value(item);
      this.path.pop();
      this.ws();
      const c = this.text.charCodeAt(this.i++);
      if (c === C.RBracket) return;
      this.ws();
    }
  }

  private quantity(): void {
    const raw = this.rawValue();
    if (raw === 'null') return;
    const text = raw.length >= 2 && raw[0] === '"' && raw[raw.length - 1] === '"' ? raw.slice(1, -1) : raw;
    const err = quantityError(text);
    if (err) throw new Abort(err);
  }

  private literal(t: GoType): void {
    const c = this.text.charCodeAt(this.i);
    if (t.kind === 'quantity') return this.quantity();
    if (c === C.Quote) return this.stringValue(t);
    const start = this.i;
    while (this.i < this.text.length && !isDelimiter(this.text.charCodeAt(this.i))) this.i++;
    const item = this.text.slice(start, this.i);
    if (c === 0x6e) return; // null is accepted everywhere
    const what = c === 0x74 || c === 0x66 ? 'bool' : 'number';
    switch (t.kind) {
      case 'raw':
        return;
      case 'any':
        if (what === 'number' && !Number.isFinite(Number(item))) this.save(this.typeError(`number ${item}`, 'float64'));
        return;
      case 'bool':
        if (what !== 'bool') this.save(this.typeError(what, t.name));
        return;
      case 'int':
      case 'intOrString': {
        const type = t.kind === 'int' ? t.name : 'int32';
        if (what === 'bool') {
          if (t.kind === 'intOrString') throw new Abort(this.typeError('bool', type));
          this.save(this.typeError('bool', type));
        } else if (!fitsInt(item, t.bits ?? 32)) {
          if (t.kind === 'intOrString') throw new Abort(this.typeError(`number ${item}`, type));
          this.save(this.typeError(`number ${item}`, type));
        }
        return;
      }
      case 'float':
        if (what === 'bool') this.save(this.typeError('bool', t.name));
        else if (!Number.isFinite(Number(item))) this.save(this.typeError(`number ${item}`, t.name));
        return;
      case 'time':
        throw new Abort(this.typeError(what, 'string'));
      default:
        this.save(this.typeError(what, t.name));
    }
  }

  private stringValue(t: GoType): void {
    switch (t.kind) {
      case 'string': case 'raw': case 'any': case 'intOrString':
        this.i = this.stringEnd(this.i);
        return;
      case 'bytes': {
        const err = base64Error(this.readString());
        if (err) this.save(err);
        return;
      }
      case 'time': {
        const err = timeError(this.readString(), t.name === 'v1.MicroTime' ? RFC3339_MICRO : RFC3339);
        if (err) throw new Abort(err);
        return;
      }
      default:
        this.i = this.stringEnd(this.i);
        this.save(this.typeError('string', t.name));
    }
  }
}

/** The keys of one object so far: a short list, a set once there are many (maps can be large). */
class SeenKeys {
  private list: string[] = [];
  private set?: Set<string>;

  /** Whether `key` was seen before; records it. */
  seen(key: string): boolean {
    if (this.set) {
      if (this.set.has(key)) return true;
      this.set.add(key);
      return false;
    }
    if (this.list.includes(key)) return true;
    this.list.push(key);
    if (this.list.length > 16) this.set = new Set(this.list);
    return false;
  }
}

/** One element of a []byte given as a JSON array. */
const BYTE: GoType = { kind: 'int', name: 'uint8', bits: 8, field: () => undefined, elem: () => ANY };

function isDelimiter(c: number): boolean {
  return c === C.Comma || c === C.RBrace || c === C.RBracket || c === C.Space || c === C.LF || c === C.CR || c === C.Tab;
}

/** strconv.ParseInt(item, 10, 64) and the target's overflow check. */
function fitsInt(item: string, bits: number): boolean {
  if (!/^-?\d+$/.test(item)) return false;
  if (bits === 8) {
    const n = Number(item);
    return n >= 0 && n <= 255;
  }
  if (item.length < 10) return true;
  const n = BigInt(item);
  const [min, max] = INT_RANGES[bits] ?? INT_RANGES[64]!;
  return n >= min && n <= max;
}

/**
 * Decodes `text` (valid JSON) into `target` as the reference's decoder would. `strict`: collect
 * unknown and duplicate fields (fieldValidation Warn or Strict); otherwise only the decode error.
 */
export function strictDecode(text: string, target: GoType, strict = true): StrictDecodeResult {
  const d = new Decoder(text, strict);
  d.run(target);
  const result: StrictDecodeResult = { strict: d.strict, unknownPaths: d.unknownPaths };
  if (d.error !== undefined) result.error = d.error;
  return result;
}
