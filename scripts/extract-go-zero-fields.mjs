// Regenerates data/go-zero-fields-1.25.json: the fields of the reference's built-in API types that
// Go's encoding/json writes even when zero — plain (not pointer) scalars whose json tag has no
// omitempty — as `<proto package>.<message>.<proto field name>`, read from the Go sources of
// kubernetes/api, kubernetes/apimachinery and kubernetes/apiextensions-apiserver v0.25.9. The
// Protobuf decoding drops zero scalars, so objects read back from etcd's Protobuf get these
// zeros again (src/server/etcd-values.ts), as the reference shows them. Facts only; no code is taken.
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
for (const source of sources) {
  const files = git(source.git, 'ls-tree', '-r', '--name-only', TAG).split('\n')
    .filter((f) => (source.only ? source.only.test(f) : /^[a-z]+\/v[0-9a-z]+\/types\.go$/.test(f)));
  for (const file of files) {
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
      if (json.split(',').includes('omitempty') || json.split(',').includes('inline') || json.startsWith('-')) continue;
      if (/^(\*|\[\]|map\[)/.test(type)) continue;
      // Scalars only: the wire type of the protobuf tag says which.
      if (!/^(varint|zigzag32|zigzag64|fixed32|fixed64|bytes)/.test(proto) || /^bytes,/.test(proto) && !/^bytes,\d+,opt,name=\w+(,casttype=[\w.]+)?$/.test(proto)) continue;
      if (/^bytes/.test(proto) && !/^(string|[A-Z]\w*|\w+\.\w+)$/.test(type)) continue;
      const name = /name=(\w+)/.exec(proto)?.[1];
      if (name) out.add(`${pkg}.${struct}.${name}`);
    }
  }
}
writeFileSync(join(root, 'data/go-zero-fields-1.25.json'), `${JSON.stringify([...out].sort(), null, 0).replace(/","/g, '",\n"')}\n`);
console.log(`${out.size} fields`);
