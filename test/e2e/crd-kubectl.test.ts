// CustomResourceDefinitions with the real kubectl against the real capstan command: apply, wait for
// Established, create and list custom resources by plural, short name and category (`get all`),
// printer columns, scale, and a restart that keeps them served.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Capstan, kubectl, ok, startCapstan, stopCapstan } from './harness.js';

const KUBECTL_1_27 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.kubectl.example.com
spec:
  group: kubectl.example.com
  scope: Namespaced
  names: { plural: gizmos, singular: gizmo, kind: Gizmo, shortNames: [gz], categories: [all] }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: { type: object, properties: { color: { type: string }, replicas: { type: integer } } }
          status: { type: object, properties: { replicas: { type: integer } } }
    subresources:
      status: {}
      scale: { specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas }
    additionalPrinterColumns:
    - { name: Color, type: string, jsonPath: .spec.color }
    - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
`;

const GIZMO = `apiVersion: kubectl.example.com/v1
kind: Gizmo
metadata: { name: g1, namespace: default }
spec: { color: blue, replicas: 1 }
`;

describe('CustomResourceDefinitions with kubectl', () => {
  let dir: string;
  let capstan: Capstan;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-crd-'));
    capstan = await startCapstan(join(dir, 'data'));
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a CRD, waits for it and serves its resources', { timeout: 60_000 }, async () => {
    const cache = ['--cache-dir', join(dir, 'cache')];
    await ok(capstan.kubeconfig, ['apply', '-f', '-'], CRD);
    const started = Date.now();
    await ok(capstan.kubeconfig, ['wait', '--for=condition=Established', '--timeout=10s', 'crd/gizmos.kubectl.example.com']);
    assert.ok(Date.now() - started < 5_000, 'established promptly');
    await ok(capstan.kubeconfig, ['apply', '-f', '-', ...cache], GIZMO);
    const table = await ok(capstan.kubeconfig, ['get', 'gz', ...cache]);
    assert.match(table, /^NAME\s+COLOR\s+AGE\n/);
    assert.match(table, /\ng1\s+blue\s+\d+s\n/);
    const all = await ok(capstan.kubeconfig, ['get', 'all', ...cache]);
    assert.match(all, /gizmo\.kubectl\.example\.com\/g1/);
    await ok(capstan.kubeconfig, ['scale', 'gizmo/g1', '--replicas=3', ...cache]);
    assert.equal(await ok(capstan.kubeconfig, ['get', 'gizmo', 'g1', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}', ...cache]), '3 2');
    const wrong = await kubectl(capstan.kubeconfig, ['apply', '-f', '-'], CRD.replace('kind: Gizmo,', 'kind: Gizmo, listKind: Gizmo,'));
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /spec.names.listKind: Invalid value: "Gizmo": kind and listKind may not be the same/);
  });

  it("leaves --validate=strict|warn to the server, whose OpenAPI says it takes fieldValidation", { timeout: 60_000 }, async () => {
    const bad = GIZMO.replace('name: g1', 'name: g-bad').replace('replicas: 1 }', 'replicas: 1, shade: dark }\nextra: 1');
    for (const binary of [undefined, KUBECTL_1_27]) {
      const cache = ['--cache-dir', join(dir, `cache-validate-${binary ? '127' : 'default'}`)];
      // Client-side validation would answer `error validating "STDIN"` without asking the server.
      const strict = await kubectl(capstan.kubeconfig, ['create', '-f', '-', '--validate=strict', ...cache], bad, { binary });
      assert.notEqual(strict.code, 0);
      assert.match(strict.stderr, /Error from server \(BadRequest\).*strict decoding error: unknown field "extra", unknown field "spec.shade"/);
      const warn = await kubectl(capstan.kubeconfig, ['create', '-f', '-', '--validate=warn', '--dry-run=server', ...cache], bad, { binary });
      assert.equal(warn.code, 0, warn.stderr);
      assert.doesNotMatch(warn.stderr, /cannot perform warn validation/);
      assert.match(warn.stderr, /Warning: unknown field "extra"\nWarning: unknown field "spec.shade"/);
    }
    assert.equal((await kubectl(capstan.kubeconfig, ['get', 'gizmo', 'g-bad'])).code, 1, 'nothing stored');
    const doc = JSON.parse(await ok(capstan.kubeconfig, ['get', '--raw', '/openapi/v3/apis/kubectl.example.com/v1'])) as {
      paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string; in: string }> }>>;
    };
    const status = doc.paths['/apis/kubectl.example.com/v1/namespaces/{namespace}/gizmos/{name}/status']!;
    assert.equal(status['patch']!.operationId, 'patchKubectlExampleComV1NamespacedGizmoStatus');
    assert.deepEqual(status['patch']!.parameters!.map((p) => `${p.in}:${p.name}`), ['query:dryRun', 'query:fieldManager', 'query:fieldValidation']);
    const collection = doc.paths['/apis/kubectl.example.com/v1/namespaces/{namespace}/gizmos']!;
    assert.equal(collection['delete']!.operationId, 'deleteKubectlExampleComV1CollectionNamespacedGizmo');
    assert.ok(collection['get']!.parameters!.some((p) => p.name === 'labelSelector'));
  });

  it('serves them again after a restart, before it is ready', { timeout: 60_000 }, async () => {
    await stopCapstan(capstan);
    capstan = await startCapstan(join(dir, 'data'));
    // No waiting: the first request after start finds the resource.
    const out = await ok(capstan.kubeconfig, ['get', 'gizmos', 'g1', '-o', 'jsonpath={.spec.color}', '--cache-dir', join(dir, 'cache-2')]);
    assert.equal(out, 'blue');
    await ok(capstan.kubeconfig, ['delete', 'crd', 'gizmos.kubectl.example.com', '--timeout=20s']);
    const gone = await kubectl(capstan.kubeconfig, ['get', 'gizmos', '--cache-dir', join(dir, 'cache-3')]);
    assert.notEqual(gone.code, 0);
  });
});
