// Key ordering and prefix ranges shared by both backends.
// Keys are ordered by Unicode code point, which is what SQLite's BINARY collation gives for UTF-8
// text (memcmp). JS's `<` compares UTF-16 code units instead, which differs for characters above
// U+FFFF against U+E000..U+FFFF, so the memory backend uses compareKeys to agree with SQLite.

/** Maps a UTF-16 code unit so that unit order equals code point order. */
function rank(unit: number): number {
  if (unit < 0xd800) return unit;
  // Surrogates (0xD800..0xDFFF) encode code points above 0xFFFF: move them after 0xE000..0xFFFF.
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Negative, zero or positive as `a` sorts before, equal to or after `b` in code point order. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

/**
 * The smallest key greater than every key that starts with `prefix`, or undefined when there is
 * none (empty prefix, or one made only of U+10FFFF): `prefix <= key < end` selects the prefix.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix, (c) => c.codePointAt(0) ?? 0);
  while (points.length > 0) {
    const last = points.pop() ?? 0;
    if (last >= 0x10ffff) continue; // cannot increment: carry to the previous character
    // U+D800..U+DFFF are not characters; the next code point after U+D7FF is U+E000.
    points.push(last === 0xd7ff ? 0xe000 : last + 1);
    return String.fromCodePoint(...points);
  }
  return undefined;
}

/** Normalises ListOptions.limit: absent, zero or negative means no limit (as Kubernetes' limit=0). */
export function effectiveLimit(limit: number | undefined): number | undefined {
  return limit !== undefined && limit > 0 ? Math.ceil(limit) : undefined;
}
