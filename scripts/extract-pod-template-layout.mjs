// Regenerates data/pod-template-layout.json: the Go type layout of core/v1 PodTemplateSpec and of
// every type under it (field order, Go field names, JSON names, pointer/slice/map shapes, named
// scalar types), read from the reference's Go source at kubernetes/api and
// kubernetes/apimachinery v0.25.0. capstan needs it to print a template as go-spew prints the Go
// value, which is what the reference hashes into `pod-template-hash` (see
// src/controllers/kit/go-spew.ts). Facts only; no code is taken.
//
//   node scripts/extract-pod-template-layout.mjs [api.git] [apimachinery.git]
//
// The arguments are git directories holding the tag v0.25.0 (defaults: the mirrors under /work/.mirror).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apiGit = process.argv[2] ?? '/work/.mirror/kubernetes+api/repo';
const machineryGit = process.argv[3] ?? '/work/.mirror/kubernetes+apimachinery/repo';
const TAG = 'v0.25.0';

/** Each Go package read: its key in the layout, the name reflect prints, its files, and how its imports are named. */
const packages = [
  { key: 'core', printed: 'v1', git: apiGit, files: ['core/v1/types.go'],
    imports: { metav1: 'meta', resource: 'resource', types: 'types', intstr: 'intstr' } },
  { key: 'meta', printed: 'v1', git: machineryGit, files: ['pkg/apis/meta/v1/types.go', 'pkg/apis/meta/v1/time.go'],
    imports: { types: 'types', time: 'time' } },
  { key: 'resource', printed: 'resource', git: machineryGit, files: ['pkg/api/resource/quantity.go', 'pkg/api/resource/amount.go'],
    imports: { inf: 'inf' } },
  { key: 'intstr', printed: 'intstr', git: machineryGit, files: ['pkg/util/intstr/intstr.go'], imports: {} },
  { key: 'types', printed: 'types', git: machineryGit, files: ['pkg/types/uid.go'], imports: {} },
];
/** Types from outside these packages, described by hand: the printer treats them specially. */
const external = {
  'time.Time': { go: 'time.Time', kind: 'struct', fields: [
    { name: 'wall', type: 'uint64' }, { name: 'ext', type: 'int64' }, { name: 'loc', type: '*time.Location' }] },
  'time.Location': { go: 'time.Location', kind: 'opaque' },
  'inf.Dec': { go: 'inf.Dec', kind: 'opaque' },
};
const BUILTIN = new Set(['string', 'bool', 'int', 'int32', 'int64', 'uint64', 'byte', 'float64']);

function show(git, file) {
  return execFileSync('git', ['--git-dir', git, 'show', `${TAG}:${file}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
}
function commitOf(git) {
  return execFileSync('git', ['--git-dir', git, 'rev-list', '-n', '1', TAG], { encoding: 'utf8' }).trim();
}

/** Qualifies a Go type expression as written in package `pkg` (e.g. `[]metav1.OwnerReference` → `[]meta.OwnerReference`). */
function qualify(expr, pkg) {
  if (expr.startsWith('*')) return '*' + qualify(expr.slice(1), pkg);
  if (expr.startsWith('[]')) return '[]' + qualify(expr.slice(2), pkg);
  if (expr.startsWith('map[')) {
    let depth = 0;
    for (let i = 3; i < expr.length; i++) {
      if (expr[i] === '[') depth++;
      else if (expr[i] === ']' && --depth === 0) {
        return `map[${qualify(expr.slice(4, i), pkg)}]${qualify(expr.slice(i + 1), pkg)}`;
      }
    }
    throw new Error(`bad map type ${expr}`);
  }
  if (BUILTIN.has(expr)) return expr;
  const dot = expr.indexOf('.');
  if (dot >= 0) {
    const alias = expr.slice(0, dot);
    const target = pkg.imports[alias];
    // An import not listed stays as written: an error only if PodTemplateSpec reaches it.
    return `${target ?? alias}.${expr.slice(dot + 1)}`;
  }
  return `${pkg.key}.${expr}`;
}

/** Every `type X struct {…}` and `type X <underlying>` of a Go file, with comments removed. */
function declarations(source, pkg, into) {
  const lines = source.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((l) => l.replace(/\/\/.*$/, '').trimEnd());
  for (let i = 0; i < lines.length; i++) {
    const struct = /^type (\w+) struct \{$/.exec(lines[i]);
    if (struct) {
      const fields = [];
      for (i++; lines[i] !== '}'; i++) {
        const line = lines[i].trim();
        if (!line) continue;
        const m = /^(?:(\w+)\s+)?(\*?[\w.[\]*{}]+)\s*(?:`(.*)`)?$/.exec(line);
        if (!m) throw new Error(`${pkg.key}.${struct[1]}: cannot read field line: ${line}`);
        const [, declared, type, tag = ''] = m;
        // An embedded field is named after its type, without package or pointer.
        const name = declared ?? type.replace(/^\*/, '').replace(/^\w+\./, '');
        const json = /json:"([^"]*)"/.exec(tag)?.[1];
        const field = { name, type: qualify(type, pkg) };
        if (json !== undefined) {
          const [jsonName, ...opts] = json.split(',');
          if (opts.includes('inline')) field.inline = true;
          else if (jsonName && jsonName !== '-') field.json = jsonName;
        }
        if (!declared) field.embedded = true;
        fields.push(field);
      }
      into[`${pkg.key}.${struct[1]}`] = { go: `${pkg.printed}.${struct[1]}`, kind: 'struct', fields };
      continue;
    }
    const named = /^type (\w+) ([\w.[\]*]+)$/.exec(lines[i]);
    if (named) {
      const underlying = qualify(named[2], pkg);
      const kind = BUILTIN.has(underlying) ? underlying : underlying.startsWith('map[') ? 'map' : underlying.startsWith('[]') ? 'slice' : null;
      if (kind) {
        const entry = { go: `${pkg.printed}.${named[1]}`, kind };
        if (kind === 'map' || kind === 'slice') entry.of = underlying;
        into[`${pkg.key}.${named[1]}`] = entry;
      }
    }
  }
}

const all = { ...external };
for (const pkg of packages) for (const f of pkg.files) declarations(show(pkg.git, f), pkg, all);

// Keep only what PodTemplateSpec reaches.
const reached = {};
const named = (expr) => expr.replace(/^(\*|\[\])+/, '');
function visit(expr) {
  if (expr.startsWith('*') || expr.startsWith('[]')) return visit(named(expr));
  if (expr.startsWith('map[')) {
    const close = expr.indexOf(']');
    visit(expr.slice(4, close));
    return visit(expr.slice(close + 1));
  }
  if (BUILTIN.has(expr) || reached[expr]) return;
  const t = all[expr];
  if (!t) throw new Error(`type ${expr} not found`);
  reached[expr] = t;
  if (t.of) visit(t.of);
  for (const f of t.fields ?? []) visit(f.type);
}
visit('core.PodTemplateSpec');

const sorted = Object.fromEntries(Object.keys(reached).sort().map((k) => [k, reached[k]]));
const out = {
  comment:
    'Go layout of core/v1 PodTemplateSpec and the types under it, from kubernetes/api and kubernetes/apimachinery ' +
    `${TAG} (Apache-2.0, The Kubernetes Authors), by scripts/extract-pod-template-layout.mjs; see data/pod-template-layout.md.`,
  sources: { 'kubernetes/api': commitOf(apiGit), 'kubernetes/apimachinery': commitOf(machineryGit), tag: TAG },
  packages: Object.fromEntries(packages.map((p) => [p.key, p.printed])),
  root: 'core.PodTemplateSpec',
  types: sorted,
};
writeFileSync(join(root, 'data/pod-template-layout.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`${Object.keys(sorted).length} types`);
