// Regenerates data/api-paths-1.25.json from the vendored OpenAPI v2 document
// (data/k8s-1.25/openapi/swagger.json): of each path, each operation's x-kubernetes-action and
// x-kubernetes-group-version-kind — all the built-in catalog (src/api/catalog.ts) reads of the
// document's 2.7 MB of paths, so that a start parses 60 KB instead.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const doc = JSON.parse(readFileSync(join(root, 'data/k8s-1.25/openapi/swagger.json'), 'utf8'));
const paths = {};
for (const [path, item] of Object.entries(doc.paths)) {
  const operations = {};
  for (const [method, op] of Object.entries(item)) {
    if (method === 'parameters' || typeof op !== 'object' || op === null || !op['x-kubernetes-action']) continue;
    operations[method] = { 'x-kubernetes-action': op['x-kubernetes-action'] };
    if (op['x-kubernetes-group-version-kind']) operations[method]['x-kubernetes-group-version-kind'] = op['x-kubernetes-group-version-kind'];
  }
  if (Object.keys(operations).length) paths[path] = operations;
}
const out = {
  comment: 'Of every path of the OpenAPI v2 document of kube-apiserver 1.25, its operations\' x-kubernetes-action and x-kubernetes-group-version-kind, by scripts/extract-api-paths.mjs. Apache-2.0, see data/k8s-1.25/LICENSE.',
  paths,
};
// One path a line, so that a change reads as a diff.
const lines = Object.entries(paths).map(([path, ops]) => `  ${JSON.stringify(path)}: ${JSON.stringify(ops)}`);
writeFileSync(join(root, 'data/api-paths-1.25.json'), `{"comment": ${JSON.stringify(out.comment)},\n "paths": {\n${lines.join(',\n')}\n}}\n`);
