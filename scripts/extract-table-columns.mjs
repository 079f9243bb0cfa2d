// Regenerates data/table-columns.json from the reference's recorded Table answers
// (test/fixtures/reference/table): the column definitions (names, types, formats, the OpenAPI
// field descriptions the reference shows, priorities) of every built-in resource's Table.
// Cells are computed by src/api/printers; this file only holds the column headers.
// Resources whose Table is the default one (Name, Created At) are recorded under "default".
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.argv[2] ?? join(root, 'test/fixtures/reference/table');

const out = {
  comment:
    'Derived from kube-apiserver 1.25 Table responses by scripts/extract-table-columns.mjs. Keys are "group/resource" ("" is the core group). Apache-2.0, see data/k8s-1.25/LICENSE.',
  default: null,
  resources: {},
};
const noPrinter = [];
for (const f of readdirSync(dir).sort()) {
  if (!f.endsWith('.json') || f.startsWith('kubectl-')) continue;
  const fixture = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const body = fixture.response.body;
  if (body?.kind !== 'Table') continue;
  const path = fixture.request.path.split('?')[0].split('/');
  const group = path[1] === 'api' ? '' : path[2];
  if (group.endsWith('.example.com')) continue; // custom resources: columns come from the CRD
  const resource = path[path.length - 1];
  const key = `${group}/${resource}`;
  const columns = body.columnDefinitions.map(({ name, type, format, description, priority }) => ({ name, type, format, description, priority }));
  if (columns.length === 2 && columns[1].name === 'Created At') {
    out.default ??= columns;
    if (!noPrinter.includes(key)) noPrinter.push(key);
    continue;
  }
  const prev = out.resources[key];
  if (prev && JSON.stringify(prev) !== JSON.stringify(columns)) throw new Error(`${key}: columns differ between versions (${f})`);
  out.resources[key] = columns;
}
out.noPrinter = noPrinter;
writeFileSync(join(root, 'data/table-columns.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`wrote ${Object.keys(out.resources).length} resources with printers, ${noPrinter.length} with the default table`);
