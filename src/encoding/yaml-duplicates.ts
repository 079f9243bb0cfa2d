// Duplicate mapping keys in a YAML text (JSON is YAML too), reported the way the reference's
// strict YAML decoder (go-yaml v2) words them: `line 7: key "replicas" already set in map`,
// with the line of the repeated key's value. Any mapping counts, whatever the schema says.
import type { Node as YamlNode } from 'yaml';
import { yamlLibrary } from './yaml-library.js';

/** Go's %#v of a decoded YAML key: strings quoted, numbers and booleans bare, null as <nil>. */
function goKey(key: unknown): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (key === null || key === undefined) return '<nil>';
  return String(key);
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * The strict YAML decoder's complaints about repeated keys, in its order: a pair is checked
 * after its value is decoded, so complaints inside a value come before the pair's own.
 */
export function yamlDuplicateKeys(text: string): string[] {
  // Apply bodies are nearly always JSON: a scan of its keys is far cheaper than composing a YAML
  // document, and only a body it cannot clear goes the YAML way (for the reference's line numbers).
  if (jsonWithoutDuplicateKeys(text)) return [];
  const { isMap, isScalar, parseDocument, visit } = yamlLibrary();
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false });
  const found: { offset: number; end: number; depth: number; key: string }[] = [];
  visit(doc, {
    Map(_, map, path) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        const keyNode = pair.key as YamlNode | null;
        if (!isScalar(keyNode)) continue;
        const key = keyNode.value;
        if (key === '<<') continue; // merge keys are not entries
        const id = `${typeof key}:${String(key)}`;
        if (!seen.has(id)) {
          seen.add(id);
          continue;
        }
        const valueNode = pair.value as YamlNode | null;
        const offset = valueNode?.range?.[0] ?? keyNode.range?.[0] ?? 0;
        const end = valueNode?.range?.[1] ?? keyNode.range?.[1] ?? 0;
        found.push({ offset, end, depth: path.length, key: goKey(key) });
      }
    },
  });
  if (!found.length) return [];
  found.sort((a, b) => a.end - b.end || b.depth - a.depth);
  const starts = lineStarts(text);
  return found.map((f) => `line ${lineOf(starts, f.offset)}: key ${f.key} already set in map`);
}

/**
 * Whether `text` is a JSON document none of whose objects repeats a key (compared decoded, as the
 * YAML decoder sees them). False for anything else: not JSON, or a key repeated.
 */
function jsonWithoutDuplicateKeys(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(text);
  } catch {
    return false;
  }
  // Valid JSON from here: each open object's keys so far (null for an array), and whether the next string is a key.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (text.charCodeAt(end) !== 0x22) {
        if (text.charCodeAt(end) === 0x5c /* \ */) {
          escaped = true;
          end++;
        }
        end++;
      }
      const keys = open[open.length - 1];
      if (expectKey && keys) {
        const raw = text.slice(i + 1, end);
        const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (keys.has(key)) return false;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = open[open.length - 1] !== null;
    }
  }
  return true;
}
