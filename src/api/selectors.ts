// labelSelector and fieldSelector: parsing, matching, and the per-resource field checks, with the
// messages kube-apiserver 1.25 answers (400 BadRequest, the message alone, as the fixtures show).
import { badRequest } from '../errors.js';
import { EMPTY_ERROR, isDNS1123Subdomain, isValidLabelValue, maxLenError, regexError } from './names.js';
import { defaultUnsupported, goQuote, type FieldSource, type SelectableFieldSpec } from './selectable-fields.js';

// ---------------------------------------------------------------------------------------------
// Label selectors
// ---------------------------------------------------------------------------------------------

export interface LabelSelector {
  matches(labels: Record<string, string> | undefined): boolean;
  /** True when the selector has no requirements (it matches everything). */
  empty: boolean;
}

type LabelOp = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const enum Tok {
  Error,
  End,
  ClosePar,
  Comma,
  Not,
  DoubleEquals,
  Equals,
  Greater,
  Ident,
  In,
  Less,
  NotEquals,
  NotIn,
  OpenPar,
}

const KEYWORDS: Record<string, Tok> = {
  ')': Tok.ClosePar,
  ',': Tok.Comma,
  '!': Tok.Not,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.Greater,
  in: Tok.In,
  '<': Tok.Less,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

/** The operators a key may be followed by, as the reference lists them in its error. */
const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

const SPECIAL = new Set([0x3d, 0x21, 0x28, 0x29, 0x2c, 0x3e, 0x3c]); // = ! ( ) , > <
const WHITESPACE = new Set([0x20, 0x09, 0x0d, 0x0a]);

interface Item {
  tok: Tok;
  lit: string;
}

/** Splits a selector into tokens. Works on UTF-8 bytes, as the reference does: a NUL byte ends the input. */
function lex(text: string): Item[] {
  const bytes = Buffer.from(text, 'utf8');
  let pos = 0;
  const read = (): number => (pos < bytes.length ? bytes[pos++]! : 0);
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (WHITESPACE.has(ch)) ch = read();
    if (ch === 0) {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    pos--;
    if (SPECIAL.has(ch)) {
      // Longest run of symbols that still forms an operator.
      const start = pos;
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === 0) break;
        if (!SPECIAL.has(c)) {
          pos--;
          break;
        }
        const sofar = bytes.subarray(start, pos).toString('latin1');
        const tok = KEYWORDS[sofar];
        if (tok !== undefined) last = { tok, lit: sofar };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${bytes.subarray(start, pos).toString('utf8')}'` });
    } else {
      const start = pos;
      let end: number;
      for (;;) {
        const before = pos;
        const c = read();
        if (c === 0) {
          // End of input, or a NUL byte (consumed, not part of the identifier).
          end = before;
          break;
        }
        if (SPECIAL.has(c) || WHITESPACE.has(c)) {
          pos--;
          end = pos;
          break;
        }
      }
      const lit = bytes.subarray(start, end).toString('utf8');
      const tok = Object.hasOwn(KEYWORDS, lit) ? KEYWORDS[lit]! : Tok.Ident;
      items.push({ tok, lit });
    }
  }
}

/** Bytewise string order (Go's sort.Strings). */
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The reference's qualified-name check (label keys): `[prefix/]name`. */
function qualifiedNameErrors(value: string): string[] {
  const what = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  const fmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
  const examples = ['MyName', 'my.name', '123-abc'];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a qualified name ${regexError(what, fmt, ...examples)} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const errs: string[] = [];
  const name = parts[parts.length - 1]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push(`name part ${EMPTY_ERROR}`);
  else if (Buffer.byteLength(name, 'utf8') > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!new RegExp(`^${fmt}$`).test(name)) errs.push(`name part ${regexError(what, fmt, ...examples)}`);
  return errs;
}

/** A field error as the reference prints it: `path: Invalid value: "v": detail`. */
const invalidValue = (path: string, value: string, detail: string): string => `${path}: Invalid value: ${goQuote(value)}: ${detail}`;

/** Several errors as the reference aggregates them: one alone, else `[a, b]` (duplicates dropped). */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** The label key check the parser runs before anything else (its field path is unset: "<nil>"). */
function checkKey(key: string): void {
  const errs = qualifiedNameErrors(key);
  if (errs.length) throw new SelectorSyntaxError(invalidValue('<nil>', key, errs.join('; ')), true);
}

const INT64 = /^[+-]?[0-9]+$/;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64), or undefined. */
function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const n = BigInt(s);
  return n < MIN_INT64 || n > MAX_INT64 ? undefined : n;
}

/** Validates one parsed requirement as the reference's requirement constructor does. */
function newRequirement(key: string, op: LabelOp, values: string[]): LabelRequirement {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length) errs.push(invalidValue('key', key, keyErrs.join('; ')));
  if (op === 'gt' || op === 'lt') {
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(invalidValue(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length) throw new SelectorSyntaxError(aggregate(errs), true);
  return { key, op, values };
}

class SelectorSyntaxError extends Error {
  constructor(message: string, readonly inRequirement: boolean) {
    super(message);
  }
}

class LabelParser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  /** The current token; in a value position the keywords `in` and `notin` are plain identifiers. */
  private peek(values: boolean): Item {
    const item = this.items[Math.min(this.position, this.items.length - 1)]!;
    return values && (item.tok === Tok.In || item.tok === Tok.NotIn) ? { tok: Tok.Ident, lit: item.lit } : item;
  }

  private next(values: boolean): Item {
    const item = this.peek(values);
    this.position++;
    return item;
  }

  private fail(message: string): never {
    throw new SelectorSyntaxError(message, true);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek(true);
      if (tok === Tok.End) return requirements;
      if (tok !== Tok.Ident && tok !== Tok.Not) {
        throw new SelectorSyntaxError(`found '${lit}', expected: !, identifier, or 'end of string'`, false);
      }
      requirements.push(this.requirement());
      const after = this.next(true);
      if (after.tok === Tok.End) return requirements;
      if (after.tok !== Tok.Comma) throw new SelectorSyntaxError(`found '${after.lit}', expected: ',' or 'end of string'`, false);
      const following = this.peek(true);
      if (following.tok !== Tok.Ident && following.tok !== Tok.Not) {
        throw new SelectorSyntaxError(`found '${following.lit}', expected: identifier after ','`, false);
      }
    }
  }

  private requirement(): LabelRequirement {
    let op: LabelOp | undefined;
    let item = this.next(true);
    if (item.tok === Tok.Not) {
      op = '!';
      item = this.next(true);
    }
    if (item.tok !== Tok.Ident) this.fail(`found '${item.lit}', expected: identifier`);
    const key = item.lit;
    checkKey(key);
    const ahead = this.peek(true).tok;
    if ((ahead === Tok.End || ahead === Tok.Comma) && op === undefined) op = 'exists';
    if (op !== undefined) return newRequirement(key, op, []);

    const opItem = this.next(false);
    switch (opItem.tok) {
      case Tok.In: op = 'in'; break;
      case Tok.NotIn: op = 'notin'; break;
      case Tok.Equals: op = '='; break;
      case Tok.DoubleEquals: op = '=='; break;
      case Tok.NotEquals: op = '!='; break;
      case Tok.Greater: op = 'gt'; break;
      case Tok.Less: op = 'lt'; break;
      default: this.fail(`found '${opItem.lit}', expected: ${BINARY_OPERATORS}`);
    }
    const values = op === 'in' || op === 'notin' ? this.valueSet() : this.exactValue();
    return newRequirement(key, op, [...new Set(values)].sort(byteOrder));
  }

  /** `( a, b, … )`; empty entries are the empty string. */
  private valueSet(): string[] {
    const open = this.next(true);
    if (open.tok !== Tok.OpenPar) this.fail(`found '${open.lit}' expected: '('`);
    const first = this.peek(true);
    if (first.tok === Tok.ClosePar) {
      this.next(true);
      return [''];
    }
    if (first.tok !== Tok.Ident && first.tok !== Tok.Comma) this.fail(`found '${first.lit}', expected: ',', ')' or identifier`);
    const values = this.identifierList();
    if (this.next(true).tok !== Tok.ClosePar) this.fail(`found '${first.lit}', expected: ')'`);
    return values;
  }

  private identifierList(): string[] {
    const values: string[] = [];
    for (;;) {
      const item = this.next(true);
      if (item.tok === Tok.Ident) {
        values.push(item.lit);
        const ahead = this.peek(true);
        if (ahead.tok === Tok.Comma) continue;
        if (ahead.tok === Tok.ClosePar) return values;
        this.fail(`found '${ahead.lit}', expected: ',' or ')'`);
      } else if (item.tok === Tok.Comma) {
        if (values.length === 0) values.push('');
        const ahead = this.peek(true).tok;
        if (ahead === Tok.ClosePar) {
          values.push('');
          return values;
        }
        if (ahead === Tok.Comma) {
          this.next(true);
          values.push('');
        }
      } else {
        this.fail(`found '${item.lit}', expected: ',', or identifier`);
      }
    }
  }

  /** The single value after `=`, `==`, `!=`, `>` or `<`; nothing there is the empty string. */
  private exactValue(): string[] {
    const ahead = this.peek(true).tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return [''];
    const item = this.next(true);
    if (item.tok === Tok.Ident) return [item.lit];
    this.fail(`found '${item.lit}', expected: identifier`);
  }
}

function matchesRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.op) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return r.op === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/**
 * Parses a labelSelector: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>5`,
 * `k<5`, joined by `,` (AND), whitespace between tokens ignored. Throws 400 with the reference's
 * message when the text is malformed or a key or value is not valid.
 */
export function parseLabelSelector(text: string): LabelSelector {
  let requirements: LabelRequirement[];
  try {
    requirements = new LabelParser(lex(text)).parse();
  } catch (err) {
    if (err instanceof SelectorSyntaxError) {
      throw badRequest(err.inRequirement ? `unable to parse requirement: ${err.message}` : err.message);
    }
    throw err;
  }
  requirements.sort((a, b) => byteOrder(a.key, b.key));
  return {
    empty: requirements.length === 0,
    matches(labels) {
      const set = labels ?? {};
      return requirements.every((r) => matchesRequirement(r, set));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Field selectors
// ---------------------------------------------------------------------------------------------

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  /** Fields missing from `fields` compare as the empty string, as in the reference. */
  matches(fields: Record<string, string>): boolean;
  /** True when the selector has no terms (it matches everything). */
  empty: boolean;
  /** The terms, in the reference's order (sorted by their text). `==` is reported as `=`. */
  requirements: Array<{ field: string; op: '=' | '!='; value: string }>;
}

/** Splits at commas not escaped with a backslash (escapes are kept for unescapeValue). */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** Splits a term at its first operator (`!=`, `==` or `=`); the field part allows no escapes. */
function splitTerm(term: string): { lhs: string; op: '=' | '==' | '!='; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Undoes `\\`, `\,` and `\=`; any other escape, a trailing `\`, or a bare `=` or `,` is an error. */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let escaped = false;
  for (const c of s) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      // The reference prints the character's code point (Go's %v of a rune).
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * Parses a fieldSelector: `field=value`, `field==value`, `field!=value`, joined by `,` (AND).
 * Values may escape `\,` `\=` `\\`. No whitespace is trimmed (the reference trims none).
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(byteOrder);
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (!term) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeValue(term.rhs);
    requirements.push({ field: term.lhs, op: term.op === '!=' ? '!=' : '=', value });
  }
  return {
    requirements,
    get empty() {
      return requirements.length === 0;
    },
    matches(fields) {
      return requirements.every((r) => {
        const actual = Object.hasOwn(fields, r.field) ? fields[r.field]! : '';
        return r.op === '=' ? actual === r.value : actual !== r.value;
      });
    },
  };
}

export interface CheckFieldSelectorOptions {
  /** The resource is a custom resource (served from a CRD): its conversion accepts metadata.name,
   *  and metadata.namespace when namespaced, and words its refusal `field label not supported: X`. */
  customResource?: { namespaced: boolean };
}

/**
 * Checks each field the selector names against what the resource's served version accepts, in the
 * selector's order, and throws 400 with the reference's message for the first it refuses. As the
 * reference's conversion does, renames accepted aliases in place to the field they are matched
 * against (pods `spec.host` → `spec.nodeName`; events.k8s.io `regarding.kind` →
 * `involvedObject.kind`, `reportingController` → `reportingComponent`, …), so that `matches`
 * compares them with `objectFields`.
 */
export function checkFieldSelector(selector: FieldSelector, spec: SelectableFieldSpec | undefined, options: CheckFieldSelectorOptions = {}): void {
  for (const r of selector.requirements) {
    if (options.customResource) {
      if (r.field === 'metadata.name' || (options.customResource.namespaced && r.field === 'metadata.namespace')) continue;
      throw badRequest(`field label not supported: ${r.field}`);
    }
    if (!spec?.labels) {
      if (r.field === 'metadata.name' || r.field === 'metadata.namespace') continue;
      throw badRequest(defaultUnsupported(r.field));
    }
    if (!Object.hasOwn(spec.labels, r.field)) throw badRequest((spec.unsupported ?? defaultUnsupported)(r.field));
    r.field = spec.labels[r.field]!;
  }
}

/** The value at a dotted path (numeric segments index arrays), or undefined. */
function valueAt(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const seg of path.split('.')) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(seg) ? cur[Number(seg)] : undefined;
    else if (cur !== null && typeof cur === 'object') cur = (cur as Record<string, unknown>)[seg];
    else return undefined;
  }
  return cur;
}

/** A field's value rendered the reference's way (Go zero values for what is missing). */
function fieldValue(obj: Record<string, unknown>, source: FieldSource): string {
  for (const path of source.paths) {
    const v = valueAt(obj, path);
    if (v === undefined || v === null) continue;
    switch (source.type) {
      case 'string':
        if (v === '') continue;
        return typeof v === 'string' ? v : String(v);
      case 'int':
        return typeof v === 'number' ? String(Math.trunc(v)) : String(v);
      case 'bool':
        return v === true ? 'true' : 'false';
    }
  }
  return source.type === 'int' ? '0' : source.type === 'bool' ? 'false' : '';
}

/**
 * The selectable field values of an object: metadata.name and metadata.namespace ("" when absent),
 * plus the resource's own fields, keyed by the names `checkFieldSelector` leaves in a selector.
 */
export function objectFields(spec: SelectableFieldSpec | undefined, obj: Record<string, unknown>): Record<string, string> {
  const metadata = (obj['metadata'] ?? {}) as Record<string, unknown>;
  const asString = (v: unknown): string => (typeof v === 'string' ? v : '');
  const fields: Record<string, string> = {
    'metadata.name': asString(metadata['name']),
    'metadata.namespace': asString(metadata['namespace']),
  };
  if (spec) for (const [name, source] of Object.entries(spec.fields)) fields[name] = fieldValue(obj, source);
  return fields;
}
