// Schema patterns are Go (RE2) regular expressions. JavaScript's RegExp reads most of them alike;
// the RE2 spellings real CRDs use and JavaScript lacks are rewritten here: flags at the start,
// `(?i)abc` (the Prometheus operator's PrometheusRule has `^(?i)(abort|warn)?$`), `\A` and `\z`,
// and named groups `(?P<name>…)`. Flags anywhere else stay unsupported (Node 20 has no `(?i:…)`).

const LEADING_FLAGS = /^((?:\^)?)\(\?([imsU]+)\)/;

/** The JavaScript source and flags of RE2 pattern `pattern` (not yet compiled). */
function translate(pattern: string): { source: string; flags: string } {
  let source = pattern;
  let flags = '';
  const m = LEADING_FLAGS.exec(source);
  if (m) {
    // RE2's `m` and `s` mean what JavaScript's do; `U` (ungreedy) has no JavaScript flag.
    if (m[2]!.includes('U')) return { source, flags };
    flags = [...new Set(m[2]!)].join('');
    source = m[1]! + source.slice(m[0].length);
  }
  source = source.replace(/\\\\|\\A|\\z|\(\?P</g, (t) => (t === '\\A' ? '(?<![\\s\\S])' : t === '\\z' ? '$(?![\\s\\S])' : t === '(?P<' ? '(?<' : t));
  return { source, flags };
}

/** Compiles RE2 pattern `pattern` as a RegExp; throws (SyntaxError) when it cannot. */
export function compileGoPattern(pattern: string): RegExp {
  const { source, flags } = translate(pattern);
  try {
    return new RegExp(source, `${flags}u`);
  } catch (unicodeError) {
    // Some RE2 patterns are valid only without `u` (e.g. `\-` outside a class); the `u` error is the telling one.
    try {
      return new RegExp(source, flags);
    } catch {
      throw unicodeError;
    }
  }
}
