// The vendored OpenAPI v2 document as the server reads it: its top-level members parsed one at a
// time, the catalog's extract of its paths (data/api-paths-1.25.json, scripts/extract-api-paths.mjs)
// and the schema model's extract of its definitions (data/schema-definitions-1.25.json,
// scripts/extract-schema-definitions.mjs), each the same as the whole file says.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinResources, draftsFromOpenApi, type OpenApiPaths } from '../../src/api/catalog.js';
import { dataDir, readDataJson } from '../../src/api/data.js';
import { swaggerDefinitions, swaggerDocument } from '../../src/api/openapi-documents.js';
import { isKnownKind, schemaFor } from '../../src/api/schema.js';

describe('the vendored OpenAPI v2 document', { timeout: 60_000 }, () => {
  const whole = JSON.parse(readFileSync(`${dataDir}k8s-1.25/openapi/swagger.json`, 'utf8')) as Record<string, unknown>;

  it('read a member at a time, is the whole file, members in its order', () => {
    assert.deepEqual(swaggerDefinitions(), whole['definitions']);
    const doc = swaggerDocument();
    assert.deepEqual(Object.keys(doc), Object.keys(whole));
    assert.deepEqual(doc, whole);
    // The definitions are one object, parsed once.
    assert.equal(doc.definitions, swaggerDefinitions());
  });

  it('the extract of its paths gives the catalog what the paths themselves give', () => {
    const extract = readDataJson<OpenApiPaths>('api-paths-1.25.json');
    const fromExtract = draftsFromOpenApi(extract);
    const fromDocument = draftsFromOpenApi(whole as unknown as OpenApiPaths);
    assert.ok(fromDocument.size > 100, `${fromDocument.size} drafts`);
    assert.deepEqual(fromExtract, fromDocument);
    const pods = builtinResources().find((r) => r.group === '' && r.version === 'v1' && r.resource === 'pods');
    assert.deepEqual(pods?.subresources.map((s) => s.name).sort(), ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'status']);
  });

  it('the extract of its definitions is each definition without its descriptions, as its script makes it', async () => {
    const script = (await import(new URL('../../../scripts/extract-schema-definitions.mjs', import.meta.url).href)) as { schemaDefinitions(d: unknown): Record<string, unknown> };
    const extract = readDataJson<{ definitions: Record<string, unknown> }>('schema-definitions-1.25.json').definitions;
    const definitions = whole['definitions'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(extract, script.schemaDefinitions(definitions));
    assert.deepEqual(Object.keys(extract), Object.keys(definitions));
    const pod = 'io.k8s.api.core.v1.Pod';
    assert.ok(definitions[pod]!['description']);
    assert.equal((extract[pod] as Record<string, unknown>)['description'], undefined);
    // What the model reads through it: a kind's fields, markers and references.
    const spec = definitions['io.k8s.api.core.v1.PodSpec']!['properties'] as Record<string, Record<string, unknown>>;
    assert.equal(spec['containers']!['x-kubernetes-patch-merge-key'], 'name');
    assert.ok(isKnownKind({ group: 'apps', version: 'v1', kind: 'Deployment' }));
    const containers = schemaFor({ group: '', version: 'v1', kind: 'Pod' }).field('spec')?.field('containers');
    assert.equal(containers?.kind, 'list');
    assert.equal(containers?.mergeKey, 'name');
  });
});
