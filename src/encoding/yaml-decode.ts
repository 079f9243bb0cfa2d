// YAML request bodies → plain values, read as YAML 1.1 the way go-yaml v2 reads them into the
// reference's maps (repeated keys keep the last value, timestamps stay strings), and bounded as
// go-yaml bounds them before anything is built:
//   - nesting: more than 10,000 levels is go-yaml's "exceeded max depth of 10000"; more than
//     500 is refused for capstan's engines and the YAML library's own recursion
//     (./depth.ts) — checked on the parser's stack as the text is read (on the text itself for
//     JSON), so a deep body costs no more than its first levels;
//   - aliases: one inside the node it names is go-yaml's "anchor 'a' value contains itself";
//     expansions beyond go-yaml's ratio of alias-driven decoding are "document contains
//     excessive aliasing" — counted on the parsed nodes, never expanded to count them.
import type { Document, DocumentOptions, LineCounter, ParseOptions, ScalarTag, SchemaOptions } from 'yaml';
import { jsonNesting, MAX_DECODER_DEPTH, MAX_YAML_DEPTH, nestingTooDeep } from './depth.js';
import { yamlLibrary } from './yaml-library.js';

const TIMESTAMP = 'tag:yaml.org,2002:timestamp';

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  customTags: (tags) => tags.map((t) => (typeof t === 'object' && t.tag === TIMESTAMP ? { ...(t as ScalarTag), resolve: (source: string) => source } : t)),
};

/** go-yaml's complaint about nesting past its bound on `line` (named unless it is the first). */
function tooDeepAt(line: number): YamlRefused {
  return new YamlRefused(`yaml: ${line > 1 ? `line ${line}: ` : ''}exceeded max depth of ${MAX_DECODER_DEPTH}`);
}

/** A body go-yaml refuses, in its words ("yaml: …"), or one past capstan's engines' bound. */
export class YamlRefused extends Error {}

const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);

/**
 * The parsed documents of `text`, its nesting checked on the parser's stack as it is read.
 * Past 500 levels the body is refused (before the library's recursive composing could run out
 * of stack): the reading goes on only long enough to see whether it also passes go-yaml's
 * 10,000 (whose words are then the answer), never to the end.
 */
function composeBounded(text: string, lines: LineCounter): Document[] {
  const { Composer, Lexer, Parser } = yamlLibrary();
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0);
  const tokens = [];
  let refused = false;
  let budget = 0;
  for (const lexeme of new Lexer().lex(text, false)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack is the document, the open collections and at most one scalar on top.
    const top = parser.stack[parser.stack.length - 1];
    const depth = parser.stack.length - 1 - (top && top.type !== 'document' && !COLLECTIONS.has(top.type) ? 1 : 0);
    if (depth > MAX_DECODER_DEPTH) throw tooDeepAt(lines.linePos(parser.offset).line);
    if (depth > MAX_YAML_DEPTH && !refused) {
      refused = true;
      budget = 10 * MAX_DECODER_DEPTH;
    }
    if (refused && --budget < 0) break;
  }
  if (refused) throw new YamlRefused(nestingTooDeep(MAX_YAML_DEPTH));
  for (const token of parser.end()) tokens.push(token);
  return [...new Composer(YAML_OPTIONS).compose(tokens, true, text.length)];
}

/** go-yaml's allowance for alias-driven decoding: 99% of small documents, down to 10% of large ones. */
function allowedAliasRatio(decodes: number): number {
  if (decodes <= 400_000) return 0.99;
  if (decodes >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodes - 400_000) / 3_600_000);
}

function excessive(aliased: number, decodes: number): boolean {
  return aliased > 100 && decodes > 1000 && aliased / decodes > allowedAliasRatio(decodes);
}

interface Measure {
  /** Nodes go-yaml decodes for this node, its aliases expanded (itself included). */
  size: number;
  /** Collections nested in its value, its aliases expanded. */
  depth: number;
}

/** Where an alias sits, so that it can be replaced by the node it names. */
type Slot = { set(node: unknown): void };

/** Items of a collection or pair, each with the slot it occupies. */
function children(node: unknown): Array<[unknown, Slot]> {
  const { isCollection, isPair } = yamlLibrary();
  if (isPair(node)) {
    return [[node.key, { set: (n) => { node.key = n; } }], [node.value, { set: (n) => { node.value = n; } }]];
  }
  if (isCollection(node)) {
    const items = node.items as unknown[];
    return items.map((item, i) => [item, { set: (n) => { items[i] = n; } }]);
  }
  return [];
}

/**
 * Checks the document's aliases as go-yaml decodes them (cycles, excessive aliasing), and its
 * nesting once they are expanded; then points each alias at the node it names, so that the
 * value is built without looking anchors up again (the library does that per alias, in time
 * growing with the document).
 */
function settleAliases(doc: Document): void {
  const { isAlias, isCollection, isPair, isScalar } = yamlLibrary();
  const anchors = new Map<string, unknown>();
  const measures = new Map<unknown, Measure>();
  const open = new Set<unknown>();
  const aliases: Array<[Slot, unknown]> = [];
  // go-yaml's counters: every node decoded (the document is the first), and those decoded
  // inside an alias's expansion.
  let decodes = 1;
  let aliased = 0;
  const refuse = (message: string) => new YamlRefused(`yaml: ${message}`);
  const stack: Array<{ node: unknown; slot?: Slot; leaving?: boolean }> = [{ node: doc.contents }];
  while (stack.length) {
    const { node, slot, leaving } = stack.pop()!;
    if (leaving) {
      open.delete(node);
      let size = isPair(node) ? 0 : 1;
      let depth = 0;
      for (const [child] of children(node)) {
        const m = measures.get(child) ?? { size: 1, depth: 0 };
        size += m.size;
        if (m.depth > depth) depth = m.depth;
      }
      measures.set(node, { size, depth: isPair(node) ? depth : depth + 1 });
      continue;
    }
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined) continue;
      if (open.has(target)) throw refuse(`anchor '${node.source}' value contains itself`);
      const m = measures.get(target) ?? { size: 1, depth: 0 };
      measures.set(node, { size: 1 + m.size, depth: m.depth });
      if (excessive(aliased, decodes)) throw refuse('document contains excessive aliasing');
      decodes += 1 + m.size;
      aliased += m.size;
      if (excessive(aliased, decodes)) throw refuse('document contains excessive aliasing');
      if (slot) aliases.push([slot, target]);
      continue;
    }
    if (!isPair(node)) decodes++;
    if ((isScalar(node) || isCollection(node)) && node.anchor) anchors.set(node.anchor, node);
    if (!isPair(node) && !isCollection(node)) continue;
    open.add(node);
    stack.push({ node, slot, leaving: true });
    const items = children(node);
    for (let i = items.length - 1; i >= 0; i--) stack.push({ node: items[i]![0], slot: items[i]![1] });
  }
  if (excessive(aliased, decodes)) throw refuse('document contains excessive aliasing');
  if ((measures.get(doc.contents)?.depth ?? 0) > MAX_YAML_DEPTH) throw new YamlRefused(nestingTooDeep(MAX_YAML_DEPTH));
  for (const [slot, target] of aliases) slot.set(target);
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Where a parse error is, as the message says it. */
function located(err: { message: string; pos: [number, number] }, lines: LineCounter): Error {
  if (err.pos[0] < 0) return new Error(err.message);
  const { line, col } = lines.linePos(err.pos[0]);
  return new Error(`${err.message} at line ${line}, column ${col}`);
}

/**
 * The value of a YAML body (its one document). Throws YamlRefused for what go-yaml refuses in
 * its own words (depth, aliases), an Error with the parser's complaint for text that is not YAML.
 */
export function parseYaml(text: string): unknown {
  // JSON is YAML, and what a YAML 1.1 parser makes of it is what JSON.parse makes of it (quoted
  // keys are never merge keys, quoted values never timestamps): most clients send JSON, and
  // JSON.parse reads it a hundred times faster than the YAML parser. It is bounded as YAML all
  // the same: the YAML library reads it again for repeated keys.
  if (/^\s*[{[]/.test(text)) {
    const nesting = jsonNesting(text, MAX_YAML_DEPTH);
    if (nesting?.over === 'decoders') throw tooDeepAt(lineAt(text, nesting.at));
    if (nesting) throw new YamlRefused(nestingTooDeep(MAX_YAML_DEPTH));
    try {
      return JSON.parse(text);
    } catch {
      // YAML's flow style, or not YAML at all: the YAML parser says which.
    }
  }
  const lines = new (yamlLibrary().LineCounter)();
  const docs = composeBounded(text, lines);
  const doc = docs[0]!;
  if (docs.length > 1) throw new Error('Source contains multiple documents; please use YAML.parseAllDocuments()');
  if (doc.errors.length) throw located(doc.errors[0]!, lines);
  settleAliases(doc);
  return doc.toJS({ maxAliasCount: -1 });
}
