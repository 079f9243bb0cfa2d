// The reference's own parsers of scalar strings met while decoding a body or query parameters,
// reduced to what decides acceptance and the error text: base64 ([]byte fields), RFC 3339 times
// (metav1.Time, metav1.MicroTime) and base-10 integers (strconv.ParseInt / ParseUint). Each
// says the error message, or the value when accepted. (Quantities are parsed by src/api/quantity.ts.)
import { goQuote as strconvQuote } from '../errors.js';

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64_ALPHABET.length; i++) BASE64_VALUE[BASE64_ALPHABET.charCodeAt(i)] = i;

function isNewline(b: number | undefined): boolean {
  return b === 0x0a || b === 0x0d;
}

/**
 * base64.StdEncoding.Decode, quantum by quantum: padding required, CR/LF skipped. The
 * message names the byte offset where Go's decoder gives up.
 */
export function base64Error(text: string): string | undefined {
  const src = Buffer.from(text, 'utf8');
  let si = 0;
  const fail = (at: number) => `illegal base64 data at input byte ${at}`;
  while (si < src.length) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return fail(si - j);
      }
      const c = src[si++]!;
      if (c < 128 && BASE64_VALUE[c]! >= 0) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) return fail(si - 1);
      // Padding: "=" after two data characters needs a second "=".
      if (j < 2) return fail(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return fail(src.length);
        if (src[si] !== 0x3d) return fail(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? fail(si) : undefined;
    }
  }
  return undefined;
}

/** Go's time-package quoting of a string in parse errors. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c >= 0x80) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
/** metav1.MicroTime's layout: exactly six fractional digits. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

class Bad extends Error {
  constructor(readonly layoutElem: string, readonly valueElem: string, readonly note = '') {
    super('');
  }
}

/** Two digits (fixed) or one-or-two digits; Go's getnum. */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s[0])) return undefined;
  if (!isDigit(s[1])) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/**
 * time.Parse with RFC3339 or RFC3339_MICRO: the first element that does not match is
 * reported as Go does (`parsing time "x" as "<layout>": cannot parse "<rest>" as "<element>"`).
 */
export function timeError(value: string, layout: string): string | undefined {
  const micro = layout === RFC3339_MICRO;
  let v = value;
  const literal = (lit: string) => {
    for (const c of lit) {
      if (v[0] !== c) throw new Bad(lit, v);
      v = v.slice(1);
    }
  };
  const number = (elem: string, fixed: boolean, range?: [number, number, string]) => {
    const got = getnum(v, fixed);
    if (!got) throw new Bad(elem, v);
    if (range && (got[0] < range[0] || got[0] > range[1])) throw new Bad(elem, got[1], `: ${range[2]} out of range`);
    v = got[1];
    return got[0];
  };
  try {
    if (v.length < 4 || !/^\d{4}/.test(v)) throw new Bad('2006', v);
    const year = Number(v.slice(0, 4));
    v = v.slice(4);
    literal('-');
    const month = number('01', true, [1, 12, 'month']);
    literal('-');
    const day = number('02', true);
    literal('T');
    number('15', false, [0, 23, 'hour']);
    literal(':');
    number('04', true, [0, 59, 'minute']);
    literal(':');
    number('05', true, [0, 59, 'second']);
    if (micro) {
      if (v.length < 7) throw new Bad('.000000', v);
      if ((v[0] !== '.' && v[0] !== ',') || !/^\d{6}$/.test(v.slice(1, 7))) throw new Bad('.000000', v);
      v = v.slice(7);
    } else if (v.length >= 2 && (v[0] === '.' || v[0] === ',') && isDigit(v[1])) {
      // A fraction the layout does not name is accepted after the seconds.
      let n = 2;
      while (n < v.length && isDigit(v[n])) n++;
      v = v.slice(n);
    }
    if (v[0] === 'Z') v = v.slice(1);
    else {
      const zone = v;
      if (v.length < 6 || v[3] !== ':' || (v[0] !== '+' && v[0] !== '-') || !getnum(v.slice(1, 3), true) || !getnum(v.slice(4, 6), true)) {
        throw new Bad('Z07:00', zone);
      }
      v = v.slice(6);
    }
    if (v.length) return `parsing time ${goQuote(value)}: extra text: ${goQuote(v)}`;
    if (day < 1 || day > daysIn(month, year)) return `parsing time ${goQuote(value)}: day out of range`;
    return undefined;
  } catch (err) {
    if (!(err instanceof Bad)) throw err;
    if (err.note) return `parsing time ${goQuote(value)}${err.note}`;
    return `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(err.valueElem)} as ${goQuote(err.layoutElem)}`;
  }
}

/** A parsed integer, or Go's strconv error text. */
export type GoInt = { value: number } | { error: string };

/**
 * strconv.ParseInt(text, 10, bits) (`signed`) or strconv.ParseUint(text, 10, bits): digits only
 * (ParseInt also takes one leading sign), the first of a stray character or an overflow, reading
 * left to right, decides the error.
 */
export function parseGoInt(text: string, bits: number, signed: boolean): GoInt {
  const fn = signed ? 'ParseInt' : 'ParseUint';
  const fail = (why: string): GoInt => ({ error: `strconv.${fn}: parsing ${strconvQuote(text)}: ${why}` });
  let digits = text;
  let negative = false;
  if (signed && (text.startsWith('+') || text.startsWith('-'))) {
    negative = text.startsWith('-');
    digits = text.slice(1);
  }
  if (digits === '') return fail('invalid syntax');
  // ParseInt reads the digits as an unsigned 64-bit number first, then checks its own range.
  const unsignedMax = signed ? 2n ** 64n - 1n : 2n ** BigInt(bits) - 1n;
  let n = 0n;
  for (const c of digits) {
    if (c < '0' || c > '9') return fail('invalid syntax');
    n = n * 10n + BigInt(c.charCodeAt(0) - 48);
    if (n > unsignedMax) return fail('value out of range');
  }
  if (signed) {
    const limit = 2n ** BigInt(bits - 1);
    if (negative ? n > limit : n >= limit) return fail('value out of range');
  }
  return { value: Number(negative ? -n : n) };
}
