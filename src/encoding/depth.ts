// How deep a request body nests, read from its text before any value is built from it. Two
// bounds: the reference's decoders refuse more than 10,000 levels (Go's encoding/json, go-yaml),
// and capstan's engines (patches, apply, field validation, defaulting and validation walks, the
// stored object's encoders) recurse, so they are given at most 1,000 — far beyond any real object.

/** Go's encoding/json maxNestingDepth; go-yaml's max flow level and indents. */
export const MAX_DECODER_DEPTH = 10_000;

/** The deepest nesting capstan's engines accept (the reference's decoders accept 10,000). */
export const MAX_JSON_DEPTH = 1000;

/**
 * The deepest YAML (other than JSON) accepted: the YAML library composes and writes documents
 * recursively, and runs out of stack a little past 800 levels.
 */
export const MAX_YAML_DEPTH = 500;

/** The complaint for a body within the decoders' bound but beyond the engines'. */
export function nestingTooDeep(limit: number): string {
  return `nesting depth exceeds the limit of ${limit}`;
}

/** Containers nested in a value (0 for a scalar), counted without recursion. */
export function valueDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > deepest) deepest = d + 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return deepest;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where JSON text nests past a bound: past the decoders' (at the bracket opening level 10,001), or only past the engines'. */
export interface JsonNesting {
  over: 'decoders' | 'engines';
  /** The offset of the bracket that went past the decoders' bound. */
  at: number;
}

/**
 * How far JSON text nests past the bounds (the engines' is `limit`), or undefined when within
 * both. One pass, stopping where the decoders' bound is crossed; strings are skipped, nothing is
 * allocated.
 */
export function jsonNesting(text: string, limit = MAX_JSON_DEPTH): JsonNesting | undefined {
  let depth = 0;
  let deepest = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // To the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return deepest > limit ? { over: 'engines', at: n } : undefined;
        let b = q - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DECODER_DEPTH) return { over: 'decoders', at: i };
      if (depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest > limit ? { over: 'engines', at: n } : undefined;
}

/** Why JSON text nests too deep, in Go's encoding/json words past 10,000 levels; undefined when it does not. */
export function jsonDepthError(text: string): string | undefined {
  const nesting = jsonNesting(text);
  if (!nesting) return undefined;
  return nesting.over === 'decoders' ? `invalid character '${text[nesting.at]}' exceeded max depth` : nestingTooDeep(MAX_JSON_DEPTH);
}
