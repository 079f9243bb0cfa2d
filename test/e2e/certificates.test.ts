// CertificateSigningRequests end to end: kubectl certificate approve / deny, the built-in signer
// issuing from the cluster CA, and the issued certificate authenticating its user.
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { call, kubeconfigTls, sleep, until } from '../helpers.js';
import { capstanForSuite, kubectl, ok } from './harness.js';

/** A key and a PKCS#10 request for CN=user, O=group, as a user would make them. */
async function request(user: string, group: string): Promise<{ key: string; csr: string }> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `O=${group}, CN=${user}`, keys, signingAlgorithm: alg });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { key, csr: csr.toString('pem') };
}

function manifest(name: string, csrPem: string, usages = ['client auth']): string {
  return JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 86400, usages },
  });
}


describe('certificate signing requests', () => {
  const suite = capstanForSuite();

  it('kubectl certificate approve: the signer issues a certificate that authenticates its user', async () => {
    const { key, csr } = await request('jane', 'developers');
    await ok(suite.current.kubeconfig, ['create', '-f', '-'], manifest('jane', csr));
    const created = JSON.parse(await ok(suite.current.kubeconfig, ['get', 'csr', 'jane', '-o', 'json']));
    assert.equal(created.spec.username, 'kubernetes-admin', 'the requester is recorded');
    assert.ok(created.spec.groups.includes('system:masters'));
    assert.match(await ok(suite.current.kubeconfig, ['get', 'csr', 'jane']), /jane\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Pending/);

    assert.match(await ok(suite.current.kubeconfig, ['certificate', 'approve', 'jane']), /certificatesigningrequest.certificates.k8s.io\/jane approved/);
    const issued = await until('certificate issued', async () => {
      const got = JSON.parse(await ok(suite.current.kubeconfig, ['get', 'csr', 'jane', '-o', 'json']));
      return got.status.certificate ? got : undefined;
    });
    const approved = issued.status.conditions.find((c: { type: string }) => c.type === 'Approved');
    assert.equal(approved.status, 'True');
    assert.equal(approved.reason, 'KubectlApprove');
    assert.match(await ok(suite.current.kubeconfig, ['get', 'csr', 'jane']), /Approved,Issued/);

    // The certificate is jane's: the server knows her, and RBAC gives her nothing yet.
    const cert = Buffer.from(issued.status.certificate, 'base64').toString('utf8');
    const tls = { ca: kubeconfigTls(suite.current.kubeconfig).ca, cert, key };
    const server = /server: (\S+)/.exec(readFileSync(suite.current.kubeconfig, 'utf8'))![1]!;
    const asJane = await call(server, 'GET', '/api/v1/namespaces', { tls });
    assert.equal(asJane.status, 403);
    assert.equal(asJane.json.message, 'namespaces is forbidden: User "jane" cannot list resource "namespaces" in API group "" at the cluster scope');
  });

  it('kubectl certificate deny: no certificate; a refused usage fails the request', async () => {
    const { csr } = await request('mallory', 'developers');
    await ok(suite.current.kubeconfig, ['create', '-f', '-'], manifest('mallory', csr));
    await ok(suite.current.kubeconfig, ['certificate', 'deny', 'mallory']);
    await sleep(300);
    const denied = JSON.parse(await ok(suite.current.kubeconfig, ['get', 'csr', 'mallory', '-o', 'json']));
    assert.equal(denied.status.certificate, undefined);
    assert.deepEqual(denied.status.conditions.map((c: { type: string }) => c.type), ['Denied']);

    const bad = await request('server', 'developers');
    await ok(suite.current.kubeconfig, ['create', '-f', '-'], manifest('server', bad.csr, ['server auth']));
    await ok(suite.current.kubeconfig, ['certificate', 'approve', 'server']);
    const failed = await until('failed', async () => {
      const got = JSON.parse(await ok(suite.current.kubeconfig, ['get', 'csr', 'server', '-o', 'json']));
      return got.status.conditions?.some((c: { type: string }) => c.type === 'Failed') ? got : undefined;
    });
    assert.equal(failed.status.certificate, undefined);
    // Approving again does nothing more: kubectl says so.
    const again = await kubectl(suite.current.kubeconfig, ['certificate', 'approve', 'server']);
    assert.equal(again.code, 0, again.stderr);
  });
});
