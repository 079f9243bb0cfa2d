// Warning headers as the reference's warning recorder writes them: one `299 - "text"` header per
// distinct text, `"` and `\` escaped and every other character as it is (UTF-8 on the wire); a
// text with a control character is dropped (it cannot be a header); past 4,096 characters in
// all, every text is cut to 256 and those that still do not fit are dropped. Nothing here can
// fail, so headers made after a write is stored never turn its answer into an error.

const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
const TRUNCATE_ITEM_RUNES = 256;

/** Go's unicode.IsControl (C0, DEL, C1), and lone surrogates (not UTF-8, which Go refuses too). */
const UNFIT = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The header value for `text`, or undefined where the reference's NewWarningHeader refuses it. */
function warningHeader(text: string): string | undefined {
  if (UNFIT.test(text)) return undefined;
  return `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The first `n` characters (code points, as Go counts runes). */
function firstRunes(text: string, n: number): string {
  return Array.from(text).slice(0, n).join('');
}

function runes(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The Warning header values for `warnings` (in order, duplicates once), as the recorder would have written them. */
export function warningHeaderValues(warnings: readonly string[]): string[] {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of warnings) {
    if (!text) continue;
    if (truncating && written >= TRUNCATE_AT_TOTAL_RUNES) break;
    if (recorded.has(text)) continue;
    recorded.add(text);
    ordered.push(text);
    let shown = text;
    let length = runes(text);
    if (truncating && length > TRUNCATE_ITEM_RUNES) {
      shown = firstRunes(text, TRUNCATE_ITEM_RUNES);
      length = TRUNCATE_ITEM_RUNES;
    }
    const header = warningHeader(shown);
    if (header === undefined) continue;
    if (written + length <= TRUNCATE_AT_TOTAL_RUNES || truncating) {
      written += length;
      headers.push(header);
      continue;
    }
    // Over the total: from now on every text is cut, the ones so far included.
    truncating = true;
    written = 0;
    headers = [];
    for (const earlier of ordered) {
      const cut = runes(earlier) > TRUNCATE_ITEM_RUNES ? firstRunes(earlier, TRUNCATE_ITEM_RUNES) : earlier;
      const again = warningHeader(cut);
      if (again === undefined) continue;
      written += runes(cut);
      headers.push(again);
    }
  }
  // Node writes header strings one byte per character: the text's UTF-8 bytes, each as one character.
  return headers.map((h) => Buffer.from(h, 'utf8').toString('latin1'));
}

/** `{ Warning: [...] }` for a response's headers; none when there is nothing to say. */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  const values = warningHeaderValues(warnings);
  return values.length ? { Warning: values } : {};
}
