// Creates of the reference's manifests (../shared/reference/create) compared with what it stored.
// Whole objects, managedFields included; the kinds listed here need no defaulting beyond the
// registry's own (defaults are a later issue).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders } from '../helpers.js';

const MATCHING = [
  'apps-v1-controllerrevisions',
  'coordination.k8s.io-v1-leases',
  'core-v1-configmaps',
  'core-v1-limitranges',
  'core-v1-namespaces',
  'core-v1-resourcequotas',
  'core-v1-secrets-dockerconfigjson',
  'core-v1-secrets-opaque',
  'core-v1-secrets-service-account-token',
  'core-v1-serviceaccounts',
  'flowcontrol.apiserver.k8s.io-v1beta1-flowschemas',
  'flowcontrol.apiserver.k8s.io-v1beta1-prioritylevelconfigurations',
  'flowcontrol.apiserver.k8s.io-v1beta2-flowschemas',
  'flowcontrol.apiserver.k8s.io-v1beta2-prioritylevelconfigurations',
  'networking.k8s.io-v1-ingressclasses',
  'node.k8s.io-v1-runtimeclasses',
  'rbac.authorization.k8s.io-v1-clusterrolebindings',
  'rbac.authorization.k8s.io-v1-clusterroles',
  'rbac.authorization.k8s.io-v1-rolebindings',
  'rbac.authorization.k8s.io-v1-roles',
  'storage.k8s.io-v1-csinodes',
  'storage.k8s.io-v1-csistoragecapacities',
  'storage.k8s.io-v1beta1-csistoragecapacities',
];


describe('creates as the reference stores them', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    for (const name of ['ref-create', 'ref-create-quota']) {
      assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
    }
  });
  after(() => server.close());

  for (const name of MATCHING) {
    it(name, async () => {
      const f = fixture(`create/${name}`);
      const reply = await call(server.url, f.request.method, f.request.path, { body: f.request.body, headers: f.request.headers });
      assert.equal(reply.status, f.response.status, reply.text);
      assert.deepEqual(placeholders(reply.json), f.response.body);
    });
  }
});
