// Regenerates data/discovery-extras.json from the reference's recorded discovery documents
// (test/fixtures/reference/discovery): what OpenAPI does not say — group order, version order,
// short names, categories, singular names and storage version hashes.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.argv[2] ?? join(root, 'test/fixtures/reference/discovery');
const body = (f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).response.body;

const apis = body('apis.json');
const out = {
  comment: 'Derived from kube-apiserver 1.25 discovery responses by scripts/extract-discovery-extras.mjs. Apache-2.0, see data/k8s-1.25/LICENSE.',
  groups: [{ name: '', versions: body('api.json').versions }].concat(
    apis.groups.map((g) => ({ name: g.name, versions: g.versions.map((v) => v.version) })),
  ),
  resources: {},
};
for (const f of readdirSync(dir).sort()) {
  const b = body(f);
  if (b.kind !== 'APIResourceList') continue;
  for (const r of b.resources) {
    const extra = {};
    if (r.singularName) extra.singularName = r.singularName;
    if (r.shortNames) extra.shortNames = r.shortNames;
    if (r.categories) extra.categories = r.categories;
    if (r.storageVersionHash) extra.storageVersionHash = r.storageVersionHash;
    if (Object.keys(extra).length) out.resources[`${b.groupVersion}/${r.name}`] = extra;
  }
}
writeFileSync(join(root, 'data/discovery-extras.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`wrote ${Object.keys(out.resources).length} resource entries, ${out.groups.length} groups`);
