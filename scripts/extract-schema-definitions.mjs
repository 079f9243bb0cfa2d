// Regenerates data/schema-definitions-1.25.json from the vendored OpenAPI v2 document
// (data/k8s-1.25/openapi/swagger.json): each definition with only what the schema model
// (src/api/schema.ts) reads of it — types, properties, references and the x-kubernetes-* markers,
// without descriptions — so that a start parses 0.2 MB instead of reading the 4.3 MB document and
// parsing its 0.9 MB of definitions (about 10 ms).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The keys of a schema the model reads, in this order. */
const KEEP_KEYS = [
  '$ref', 'type', 'format', 'properties', 'additionalProperties', 'items', 'required', 'allOf',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-group-version-kind',
];

function slim(schema) {
  const out = {};
  for (const k of KEEP_KEYS) {
    const v = schema[k];
    if (v === undefined) continue;
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, slim(p)]));
    else if ((k === 'items' || k === 'additionalProperties') && typeof v === 'object') out[k] = slim(v);
    else if (k === 'allOf') out[k] = v.map(slim);
    else out[k] = v;
  }
  return out;
}

/** The extract's definitions, from the whole document's (a test compares them with the file). */
export function schemaDefinitions(definitions) {
  return Object.fromEntries(Object.entries(definitions).map(([name, d]) => [name, slim(d)]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = JSON.parse(readFileSync(join(root, 'data/k8s-1.25/openapi/swagger.json'), 'utf8'));
  const comment = 'Of every definition of the OpenAPI v2 document of kube-apiserver 1.25, what the schema model reads (no descriptions), by scripts/extract-schema-definitions.mjs. Apache-2.0, see data/k8s-1.25/LICENSE.';
  // One definition a line, so that a change reads as a diff.
  const lines = Object.entries(schemaDefinitions(doc.definitions)).map(([name, d]) => `  ${JSON.stringify(name)}: ${JSON.stringify(d)}`);
  writeFileSync(join(root, 'data/schema-definitions-1.25.json'), `{"comment": ${JSON.stringify(comment)},\n "definitions": {\n${lines.join(',\n')}\n}}\n`);
}
