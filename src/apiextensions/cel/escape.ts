// How property names become CEL field names (the reference's apiserver/pkg/cel Escape): names
// that are CEL reserved words become `__{word}__`, and `__`, `.`, `-`, `/` inside a name become
// `__underscores__`, `__dot__`, `__dash__`, `__slash__`. Names with any other character are not
// accessible from rules at all.

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);
const ACCESSIBLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

/** The CEL field name of property `name`, or undefined when rules cannot reach it. */
export function escapeName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!ACCESSIBLE.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
}
