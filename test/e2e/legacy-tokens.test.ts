// The service-account token controller over HTTPS: a token secret is filled with a working legacy
// token, the CA and the namespace; a token for a missing account, or of a deleted one, is removed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { call, kubeconfigTls, until } from '../helpers.js';
import { capstanForSuite, kubectl, ok } from './harness.js';


const tokenSecret = (name: string, account: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
  metadata: { name, namespace: 'default', annotations: { 'kubernetes.io/service-account.name': account } },
});

describe('legacy service-account token secrets', () => {
  const suite = capstanForSuite();

  it('fills the secret with a token that authenticates as the service account', async () => {
    await ok(suite.current.kubeconfig, ['create', 'serviceaccount', 'builder', '-n', 'default']);
    await ok(suite.current.kubeconfig, ['create', '-f', '-'], tokenSecret('builder-token', 'builder'));
    const secret = await until('token filled', async () => {
      const s = JSON.parse(await ok(suite.current.kubeconfig, ['get', 'secret', 'builder-token', '-n', 'default', '-o', 'json']));
      return s.data?.token ? s : undefined;
    });
    const sa = JSON.parse(await ok(suite.current.kubeconfig, ['get', 'sa', 'builder', '-n', 'default', '-o', 'json']));
    assert.equal(secret.metadata.annotations['kubernetes.io/service-account.uid'], sa.metadata.uid);
    assert.equal(Buffer.from(secret.data.namespace, 'base64').toString(), 'default');
    const tls = kubeconfigTls(suite.current.kubeconfig);
    assert.equal(Buffer.from(secret.data['ca.crt'], 'base64').toString(), tls.ca);
    const token = Buffer.from(secret.data.token, 'base64').toString();
    const server = /server: (\S+)/.exec(readFileSync(suite.current.kubeconfig, 'utf8'))![1]!;
    const asBuilder = await call(server, 'GET', '/api/v1/namespaces/default/secrets', { tls: { ca: tls.ca }, headers: { Authorization: `Bearer ${token}` } });
    assert.equal(asBuilder.status, 403);
    assert.equal(asBuilder.json.message, 'secrets is forbidden: User "system:serviceaccount:default:builder" cannot list resource "secrets" in API group "" in the namespace "default"');

    // The account goes: its token secret goes, and the token stops working.
    await ok(suite.current.kubeconfig, ['delete', 'serviceaccount', 'builder', '-n', 'default']);
    await until('secret deleted', async () => ((await kubectl(suite.current.kubeconfig, ['get', 'secret', 'builder-token', '-n', 'default'])).code !== 0 ? true : undefined));
    const after = await call(server, 'GET', '/api/v1/namespaces/default/secrets', { tls: { ca: tls.ca }, headers: { Authorization: `Bearer ${token}` } });
    assert.equal(after.status, 401);
  });

  it('removes a token secret for an account that does not exist', async () => {
    await ok(suite.current.kubeconfig, ['create', '-f', '-'], tokenSecret('nobody-token', 'nobody'));
    await until('secret deleted', async () => ((await kubectl(suite.current.kubeconfig, ['get', 'secret', 'nobody-token', '-n', 'default'])).code !== 0 ? true : undefined));
  });
});
