// The type label of etcd_request_duration_seconds, from a storage key: the reference's Go type of
// the resource's objects (or of its lists), found again when the definitions change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { genericDefinition } from '../../src/registry/definitions.js';
import { storageTypeNames } from '../../src/registry/storage-types.js';

describe('storageTypeNames', { timeout: 10_000 }, () => {
  it('names built-in objects and lists by their internal package, core and grouped alike', () => {
    const typeOf = storageTypeNames(builtinResourceDefinitions());
    // Twice each: the second answer comes from what the first found.
    for (let i = 0; i < 2; i++) {
      assert.equal(typeOf('/registry/configmaps/default/a', false), '*core.ConfigMap');
      assert.equal(typeOf('/registry/configmaps/', true), '*core.ConfigMapList');
      assert.equal(typeOf('/registry/apps/deployments/default/web', false), '*apps.Deployment');
      assert.equal(typeOf('/registry/apps/deployments/', true), '*apps.DeploymentList');
      assert.equal(typeOf('/registry/coordination.k8s.io/leases/kube-node-lease/n1', false), '*coordination.Lease');
      assert.equal(typeOf('/registry/nodes/n1', false), '*core.Node');
      assert.equal(typeOf('/registry/apps/nothings/x', false), 'unknown');
      assert.equal(typeOf('/registry/nothings/x', false), 'unknown');
      assert.equal(typeOf('/elsewhere/configmaps/x', false), 'unknown');
    }
  });

  it('follows resources defined and removed at run time', () => {
    const definitions = builtinResourceDefinitions();
    const typeOf = storageTypeNames(definitions);
    const key = '/registry/example.com/widgets/default/w';
    assert.equal(typeOf(key, false), 'unknown');
    definitions.add(genericDefinition({ group: 'example.com', resource: 'widgets', kind: 'Widget', namespaced: true, versions: ['v1'] }));
    assert.equal(typeOf(key, false), '*unstructured.Unstructured');
    assert.equal(typeOf('/registry/example.com/widgets/', true), '*unstructured.UnstructuredList');
    assert.equal(typeOf('/registry/configmaps/default/a', false), '*core.ConfigMap');
    definitions.remove('example.com', 'widgets');
    assert.equal(typeOf(key, false), 'unknown');
  });
});
