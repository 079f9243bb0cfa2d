// Content negotiation: which representation an Accept header asks for (format and, for
// `as=Table` / `as=PartialObjectMetadata[List]`, a transformation), and what a body's Content-Type is.
import { notAcceptable, StatusError } from '../errors.js';

export type Format = 'json' | 'yaml' | 'protobuf';
/** Kept for callers that only care about the serialization. */
export type Representation = Format;

export type Transform = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** What the request is for: transformations apply to some targets only. */
export type Target = 'object' | 'list' | 'watch' | 'other';

export interface Negotiated {
  format: Format;
  transform?: Transform;
  /** Group version of the transformation's kind: meta.k8s.io/v1 or v1beta1. */
  transformVersion?: string;
}

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
/** The reference's other wording of a 406 (a transformation, or Protobuf of a kind without messages). */
const ONLY_ACCEPTED = `only the following media types are accepted: ${AVAILABLE}`;

function formatOf(range: MediaRange): Format | undefined {
  const { type, subtype } = range;
  if ((type === '*' || type === 'application') && subtype === '*') return 'json';
  if (type !== 'application') return undefined;
  if (subtype === 'json') return 'json';
  if (subtype === 'yaml') return 'yaml';
  if (subtype === 'vnd.kubernetes.protobuf') return 'protobuf';
  return undefined;
}

/** Transformations the server renders, and for which targets. */
const TRANSFORMS: Record<string, { targets: Target[]; versions: string[] }> = {
  Table: { targets: ['object', 'list', 'watch'], versions: ['v1', 'v1beta1'] },
  PartialObjectMetadata: { targets: ['object', 'watch'], versions: ['v1', 'v1beta1'] },
  PartialObjectMetadataList: { targets: ['list'], versions: ['v1', 'v1beta1'] },
};

function negotiatedOf(range: MediaRange, target: Target, tableAvailable: boolean, protobufAvailable: boolean): Negotiated | undefined {
  const format = formatOf(range);
  if (!format) return undefined;
  const as = range.params['as'];
  // Protobuf only for kinds that have messages, and never for the transformations.
  if (format === 'protobuf' && (!protobufAvailable || as !== undefined)) return undefined;
  if (as === undefined) return { format };
  const spec = TRANSFORMS[as];
  if (!spec || range.params['g'] !== 'meta.k8s.io' || !spec.versions.includes(range.params['v'] ?? '')) return undefined;
  if (!spec.targets.includes(target) || (as === 'Table' && !tableAvailable)) return undefined;
  return { format, transform: as as Transform, transformVersion: `meta.k8s.io/${range.params['v']}` };
}

/**
 * Whether an Accept header names Protobuf at all: only then does it matter whether the kind has a
 * Protobuf message (finding out loads every message, which JSON clients never need).
 */
export function namesProtobuf(accept: string | undefined): boolean {
  return accept !== undefined && accept.toLowerCase().includes('vnd.kubernetes.protobuf');
}

/**
 * 406 for Protobuf asked of a kind that has no Protobuf message (a custom resource) and nothing
 * else acceptable: the reference's serializers include Protobuf, so it refuses in its other
 * wording and, Status having a message, answers in Protobuf.
 */
export class ProtobufNotAvailable extends StatusError {
  constructor() {
    super(406, 'NotAcceptable', ONLY_ACCEPTED);
  }
}

/**
 * The representation to answer with, or 406 when nothing offered is served. `kindKnown`: the
 * request names a served kind, so Protobuf refused for it is refused as ProtobufNotAvailable.
 */
export function negotiate(accept: string | undefined, target: Target = 'other', tableAvailable = true, protobufAvailable = false, kindKnown = false): Negotiated {
  if (!accept || !accept.trim()) return { format: 'json' };
  let transform = false;
  let protobufRefused = false;
  for (const range of parseMediaRanges(accept)) {
    if (range.q <= 0) continue;
    const n = negotiatedOf(range, target, tableAvailable, protobufAvailable);
    if (n) return n;
    if (range.params['as'] !== undefined) transform = true;
    else if (formatOf(range) === 'protobuf') protobufRefused = true;
  }
  // A transformation nobody serves is refused in the reference's other wording.
  if (transform) throw new StatusError(406, 'NotAcceptable', ONLY_ACCEPTED);
  if (protobufRefused && kindKnown) throw new ProtobufNotAvailable();
  throw notAcceptableError();
}

export function notAcceptableError(): StatusError {
  return notAcceptable(`406: Not Acceptable\n\nAvailable representations: ${AVAILABLE}`);
}

/** The reference names only the serialization in Content-Type, whatever the transformation. */
export function contentTypeOf(n: Negotiated): string {
  if (n.format === 'protobuf') return 'application/vnd.kubernetes.protobuf';
  return n.format === 'yaml' ? 'application/yaml' : 'application/json';
}

/** The bare media type of a Content-Type header (lower case, no parameters). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
