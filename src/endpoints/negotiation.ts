// Content negotiation: which representation an Accept header asks for, and what a body's
// Content-Type says it is.
import { notAcceptable, StatusError } from '../errors.js';

export type Representation = 'json' | 'yaml';

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

export function parseMediaRanges(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [full, ...rest] = part.split(';');
    const [type, subtype] = (full ?? '').trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
      if (key === 'q') q = Number(value);
      else params[key] = value;
    }
    out.push({ type, subtype, params, q });
  }
  // Stable sort by q, highest first.
  return out.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map((x) => x.r);
}

const AVAILABLE = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';

function representationOf(range: MediaRange): Representation | undefined {
  // Transformations (as=Table, as=PartialObjectMetadata, …) are not served yet: skip to the next range.
  if (range.params['as'] !== undefined) return undefined;
  const { type, subtype } = range;
  if ((type === '*' || type === 'application') && subtype === '*') return 'json';
  if (type !== 'application') return undefined;
  if (subtype === 'json') return 'json';
  if (subtype === 'yaml') return 'yaml';
  return undefined;
}

/** The representation to answer with, or 406 when nothing offered is served. */
export function negotiate(accept: string | undefined): Representation {
  if (!accept || !accept.trim()) return 'json';
  let transform = false;
  for (const range of parseMediaRanges(accept)) {
    if (range.q <= 0) continue;
    const r = representationOf(range);
    if (r) return r;
    if (range.params['as'] !== undefined) transform = true;
  }
  // A transformation nobody serves is refused in the reference's other wording.
  if (transform) throw new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${AVAILABLE}`);
  throw notAcceptableError();
}

export function notAcceptableError(): StatusError {
  return notAcceptable(`406: Not Acceptable\n\nAvailable representations: ${AVAILABLE}`);
}

export const CONTENT_TYPES: Record<Representation, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
};

/** The bare media type of a Content-Type header (lower case, no parameters). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
