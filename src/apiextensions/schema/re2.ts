// Schema patterns are Go regular expressions (RE2). They are compiled by re2js, which reads RE2's
// syntax as Go does ((?i), \A, \z, (?P<name>…), POSIX classes), refuses what RE2 refuses with
// Go's words ("error parsing regexp: …"), and matches in linear time: a CRD's pattern cannot
// stall the server on a hostile value, as a backtracking JavaScript RegExp could.
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

let re2js: typeof RE2JS | undefined;

/**
 * re2js's RE2JS, loaded when the first pattern is compiled (a schema's or a CEL rule's): it is
 * large, and a server that never sees one never needs it. Loaded synchronously (its CommonJS
 * build, the same code as its ES one) because patterns are checked deep in synchronous validation.
 */
export function re2Engine(): typeof RE2JS {
  return (re2js ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS);
}

/** A compiled pattern: `test` says whether it matches anywhere in the text, as Go's MatchString. */
export interface GoPattern {
  test(text: string): boolean;
}

/** Compiles RE2 pattern `pattern`; throws, with Go's "error parsing regexp: …" message, when it cannot. */
export function compileGoPattern(pattern: string): GoPattern {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    const re = re2Engine().compile(pattern);
    compiled = { test: (text) => re.matcher(text).find() };
    // Many CRDs share patterns and a CRD's schema is checked at each of its syncs: compile each once.
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}

const MAX_COMPILED_PATTERNS = 4096;
const compiledPatterns = new Map<string, GoPattern>();
