// The vendored OpenAPI v2 document as the server reads it: its top-level members parsed one at a
// time (a start parses `definitions` only), and the catalog's extract of its paths
// (data/api-paths-1.25.json, scripts/extract-api-paths.mjs), each the same as the whole file says.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinResources, draftsFromOpenApi, type OpenApiPaths } from '../../src/api/catalog.js';
import { dataDir, readDataJson } from '../../src/api/data.js';
import { swaggerDefinitions, swaggerDocument } from '../../src/api/openapi-documents.js';

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
});
