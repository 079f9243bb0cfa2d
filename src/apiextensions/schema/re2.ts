// Schema patterns are Go regular expressions (RE2). They are compiled by re2js, which reads RE2's
// syntax as Go does ((?i), \A, \z, (?P<name>…), POSIX classes), refuses what RE2 refuses with
// Go's words ("error parsing regexp: …"), and matches in linear time: a CRD's pattern cannot
// stall the server on a hostile value, as a backtracking JavaScript RegExp could.
import { RE2JS } from 're2js';

/** A compiled pattern: `test` says whether it matches anywhere in the text, as Go's MatchString. */
export interface GoPattern {
  test(text: string): boolean;
}

/** Compiles RE2 pattern `pattern`; throws, with Go's "error parsing regexp: …" message, when it cannot. */
export function compileGoPattern(pattern: string): GoPattern {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    const re = RE2JS.compile(pattern);
    compiled = { test: (text) => re.matcher(text).find() };
    // Many CRDs share patterns and a CRD's schema is checked at each of its syncs: compile each once.
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

const MAX_COMPILED_PATTERNS = 4096;
const compiledPatterns = new Map<string, GoPattern>();
