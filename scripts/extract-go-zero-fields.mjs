// Regenerates data/go-zero-fields-1.25.json: the fields of the reference's built-in API types that
// Go's encoding/json writes even when zero — plain (not pointer) scalars whose json tag has no
// omitempty — as `<proto package>.<message>.<proto field name>`, read from the Go sources of
// kubernetes/api, kubernetes/apimachinery and kubernetes/apiextensions-apiserver v0.25.9. The
// Protobuf decoding drops zero scalars, so objects read back from etcd's Protobuf get these
// zeros again (src/server/etcd-values.ts), as the reference shows them. Facts only; no code is taken.
// Also data/go-nil-fields-1.25.json: `nulls`, the slices, maps and struct pointers without
// omitempty (Go writes a nil one as null, and a Protobuf decoding leaves them nil), and
// `pointers`, the scalar pointers (a present "" or 0 is a value, kept).
//
//   node scripts/extract-go-zero-fields.mjs
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TAG = 'v0.25.9';
const sources = [
  { git: '/work/.mirror/kubernetes+api/repo', protoPrefix: 'k8s.io.api', strip: '' },
  { git: '/work/.mirror/kubernetes+apimachinery/repo', protoPrefix: 'k8s.io.apimachinery', strip: '', only: /^pkg\/apis\/meta\/v1\/types\.go$/ },
  { git: '/work/.mirror/kubernetes+apiextensions-apiserver/repo', protoPrefix: 'k8s.io.apiextensions_apiserver', strip: '', only: /^pkg\/apis\/apiextensions\/v1(beta1)?\/types.*\.go$/ },
];

const git = (dir, ...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
const out = new Set();
const nulls = new Set();
const pointers = new Set();
/** Struct names of every source file (a pointer to one is a message, not a scalar). */
const structs = new Set();
/**
 * A Go type that is a scalar behind a pointer: `*string`, `*int32`, a cast (casttype=), or a type
 * of the same package that is no struct (`*HostPathType`). Other packages' types are messages.
 */
const scalarPointer = (type, proto) => /^\*(string|bool|u?int\d*|float\d*)$/.test(type) || (/^\*/.test(type) && /casttype=/.test(proto))
  || (/^\*[A-Z]\w*$/.test(type) && !structs.has(type.slice(1)));
const filesOf = (source) => git(source.git, 'ls-tree', '-r', '--name-only', TAG).split('\n')
  .filter((f) => (source.only ? source.only.test(f) : /^[a-z]+\/v[0-9a-z]+\/types\.go$/.test(f)));
for (const source of sources) {
  // Every Go file beside the types (metav1's Time is in time.go).
  const dirs = new Set(filesOf(source).map((f) => dirname(f)));
  const all = git(source.git, 'ls-tree', '-r', '--name-only', TAG).split('\n').filter((f) => dirs.has(dirname(f)) && f.endsWith('.go') && !f.endsWith('_test.go'));
  for (const file of all) {
    for (const [, name] of git(source.git, 'show', `${TAG}:${file}`).matchAll(/^type (\w+) struct \{/gm)) structs.add(name);
  }
}
for (const source of sources) {
  for (const file of filesOf(source)) {
    const pkg = `${source.protoPrefix}.${dirname(file).replace(/\//g, '.')}`;
    let struct;
    for (const line of git(source.git, 'show', `${TAG}:${file}`).split('\n')) {
      const open = /^type (\w+) struct \{/.exec(line);
      if (open) { struct = open[1]; continue; }
      if (/^\}/.test(line)) { struct = undefined; continue; }
      if (!struct) continue;
      const field = /^\s+\w+\s+([^\s`]+)\s+`([^`]*)`/.exec(line);
      if (!field) continue;
      const [, type, tags] = field;
      const json = /json:"([^"]*)"/.exec(tags)?.[1];
      const proto = /protobuf:"([^"]*)"/.exec(tags)?.[1];
      if (json === undefined || proto === undefined) continue;
      const name = /name=(\w+)/.exec(proto)?.[1];
      if (json.split(',').includes('inline') || json.startsWith('-') || !name) continue;
      if (scalarPointer(type, proto)) pointers.add(`${pkg}.${struct}.${name}`);
      if (json.split(',').includes('omitempty')) continue;
      if (/^(\[\]|map\[)/.test(type) || (/^\*/.test(type) && !scalarPointer(type, proto))) nulls.add(`${pkg}.${struct}.${name}`);
      if (/^(\*|\[\]|map\[)/.test(type)) continue;
      // Scalars only: the wire type of the protobuf tag says which.
      if (!/^(varint|zigzag32|zigzag64|fixed32|fixed64|bytes)/.test(proto) || /^bytes,/.test(proto) && !/^bytes,\d+,opt,name=\w+(,casttype=[\w.]+)?$/.test(proto)) continue;
      if (/^bytes/.test(proto) && !/^(string|[A-Z]\w*|\w+\.\w+)$/.test(type)) continue;
      out.add(`${pkg}.${struct}.${name}`);
    }
  }
}
writeFileSync(join(root, 'data/go-zero-fields-1.25.json'), `${JSON.stringify([...out].sort(), null, 0).replace(/","/g, '",\n"')}\n`);
const list = (set) => JSON.stringify([...set].sort(), null, 0).replace(/","/g, '",\n"');
writeFileSync(join(root, 'data/go-nil-fields-1.25.json'), `{"nulls": ${list(nulls)},\n"pointers": ${list(pointers)}}\n`);
console.log(`${out.size} fields written when zero, ${nulls.size} written null when nil, ${pointers.size} scalar pointers`);
