// The string formats a custom resource's values are checked against: kube-openapi's strfmt
// registry, limited to the formats apiextensions-apiserver keeps (others, e.g. int32, int64,
// float, double, are dropped from the schema before validation, so they check nothing).
// Format names are compared without dashes ("date-time" is "datetime"), as go-openapi does.
import { isIPv4, isIPv6 } from 'node:net';
import { isValidCIDR } from '../../api/validation/helpers.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const BYTE_VALUE = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const RGBCOLOR = new RegExp(`^rgb\\(\\s*${BYTE_VALUE}\\s*,\\s*${BYTE_VALUE}\\s*,\\s*${BYTE_VALUE}\\s*\\)$`);
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$/;
const EMAIL = /^(?:[^\s@<>]+@[^\s@<>]+|[^<>]*<[^\s@<>]+@[^\s@<>]+>)$/;
const REQUEST_URI = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*|\/[^\s]*)$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const DURATION_GO = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_WORDS = /^(\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|[nuµm]?sec|mins?|hrs?)$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1]!;
}

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** RFC 3339 (micro, milli, nano or no fraction) or ISO 8601 local time without a zone. */
function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return false;
  // time.Parse needs a zone with a fraction (the local-time layout has none).
  return m[8] !== undefined || m[7] === undefined;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;

function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]/g, '');
  return CREDIT_CARD.test(digits) && luhn(digits);
}

function isISBN10(s: string): boolean {
  const c = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(c)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(c[i]);
  sum += c[9] === 'X' ? 100 : 10 * Number(c[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const c = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(c)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(c[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(c[12]);
}

function isHostname(s: string): boolean {
  return HOSTNAME.test(s) && s.length <= 255 && s.split('.').every((p) => Buffer.byteLength(p) <= 63);
}

const CHECKS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  uri: (s) => REQUEST_URI.test(s),
  email: (s) => EMAIL.test(s),
  hostname: isHostname,
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  cidr: isValidCIDR,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: (s) => DURATION_GO.test(s) || DURATION_WORDS.test(s),
  datetime: isDateTime,
};

/** A format name as go-openapi compares it: without dashes. */
const normalized = (format: string): string => format.replace(/-/g, '');

/** Whether values are checked against `format` (else the format is dropped and checks nothing). */
export function isSupportedFormat(format: string): boolean {
  return Object.hasOwn(CHECKS, normalized(format));
}

/** Whether `value` is valid in a supported `format`; true for formats that are not checked. */
export function matchesFormat(format: string, value: string): boolean {
  const check = CHECKS[normalized(format)];
  return check === undefined || !Object.hasOwn(CHECKS, normalized(format)) || check(value);
}
