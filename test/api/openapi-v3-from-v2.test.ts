// The v3 paths made from the v2 document's are the reference's: for every group-version (and group)
// the vendored 1.25 v3 documents have, made from the vendored v2 document, they are the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openApiV3Bytes, openApiV3Paths, swaggerDocument } from '../../src/api/openapi-documents.js';
import { v2PathsOf, v3PathsFromV2 } from '../../src/api/openapi-v3-from-v2.js';
import { decodeJson } from '../../src/json.js';

describe('OpenAPI v3 paths from v2', () => {
  const documents = [...openApiV3Paths()].filter(([name]) => /^(api\/[^/]+|apis\/[^/]+(\/[^/]+)?)$/.test(name));

  it('covers every vendored group and group-version document', { timeout: 10_000 }, () => {
    assert.ok(documents.length === 44, `${documents.length} documents`);
    assert.ok(documents.some(([name]) => name === 'api/v1') && documents.some(([name]) => name === 'apis/apps'));
  });

  for (const [name, file] of documents) {
    it(`${name}: the same paths as the vendored v3 document`, { timeout: 10_000 }, () => {
      const vendored = decodeJson(openApiV3Bytes(file)) as { paths: Record<string, unknown> };
      const made = v3PathsFromV2(swaggerDocument().paths, name);
      assert.deepEqual(Object.keys(made).sort(), Object.keys(vendored.paths).sort());
      assert.deepEqual(made, vendored.paths);
    });
  }

  it('takes a group-version its paths, a group only its own', { timeout: 10_000 }, () => {
    const paths = swaggerDocument().paths;
    assert.deepEqual(Object.keys(v2PathsOf(paths, 'apis/apiregistration.k8s.io')), ['/apis/apiregistration.k8s.io/']);
    const v1 = Object.keys(v2PathsOf(paths, 'apis/apiregistration.k8s.io/v1'));
    assert.ok(v1.includes('/apis/apiregistration.k8s.io/v1/apiservices/{name}') && v1.includes('/apis/apiregistration.k8s.io/v1/'));
    assert.ok(v1.every((p) => p.startsWith('/apis/apiregistration.k8s.io/v1/')));
  });
});
