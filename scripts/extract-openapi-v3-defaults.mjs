// Regenerates data/openapi-v3-defaults-1.25.json from the vendored OpenAPI v3 documents
// (data/k8s-1.25/openapi/v3): the `default` of every property that has one, per definition — all
// the server reads of those 5 MB at start (the v2 document has no defaults). A definition found in
// several documents must have the same defaults in each (it is one Go type); the script fails if not.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'data/k8s-1.25/openapi/v3');
const definitions = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const defaults = {};
    for (const [property, s] of Object.entries(schema.properties ?? {})) if (s.default !== undefined) defaults[property] = s.default;
    if (Object.keys(defaults).length === 0) continue;
    if (name in definitions && JSON.stringify(definitions[name]) !== JSON.stringify(defaults)) throw new Error(`${name}: other defaults in ${file}`);
    definitions[name] = defaults;
  }
}
const out = {
  comment: 'Property defaults per definition, from the OpenAPI v3 documents of kube-apiserver 1.25 by scripts/extract-openapi-v3-defaults.mjs. Apache-2.0, see data/k8s-1.25/LICENSE.',
  definitions: Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : 1))),
};
writeFileSync(join(root, 'data/openapi-v3-defaults-1.25.json'), `${JSON.stringify(out, null, 1)}\n`);
