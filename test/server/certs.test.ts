// TLS material: created once and reused, what the certificates say, and a real handshake
// with client-certificate authentication.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import {
  CERT_FILES,
  ensureServingMaterial,
  issueClientCertificate,
  servingNames,
  type ServingMaterial,
} from '../../src/server/certs.js';
import { authenticator, credentialsFromRequest, type PeerCredentials } from '../../src/auth/authenticators.js';

const tmp = mkdtempSync(join(tmpdir(), 'capstan-certs-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

describe('ensureServingMaterial', () => {
  const dir = join(tmp, 'main');
  let first: ServingMaterial;
  let firstMs = 0;

  before(async () => {
    const t0 = performance.now();
    first = await ensureServingMaterial(dir, ['192.0.2.10', 'api.example.test']);
    firstMs = performance.now() - t0;
  });

  it('creates the files once and returns the same bytes on later calls', async () => {
    const t0 = performance.now();
    const second = await ensureServingMaterial(dir, ['192.0.2.10', 'api.example.test']);
    const laterMs = performance.now() - t0;
    assert.deepEqual(second, first);
    for (const [field, file] of Object.entries(CERT_FILES)) {
      assert.equal(readFileSync(join(dir, file), 'utf8'), first[field as keyof ServingMaterial], file);
    }
    // First start generates keys and signs; later starts only read and check.
    assert.ok(laterMs < 200, `later start took ${laterMs.toFixed(1)} ms`);
    assert.ok(firstMs < 5000, `first start took ${firstMs.toFixed(1)} ms`);
  });

  it('writes keys with mode 0600', () => {
    for (const file of [CERT_FILES.caKey, CERT_FILES.serverKey, CERT_FILES.adminKey, CERT_FILES.serviceAccountKey]) {
      assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600, file);
    }
    assert.equal(statSync(join(dir, CERT_FILES.caCert)).mode & 0o077 & 0o022, 0);
  });

  it('makes a self-signed CA named capstan-ca', () => {
    const ca = new X509Certificate(first.caCert);
    assert.equal(ca.subject, 'CN=capstan-ca');
    assert.equal(ca.issuer, 'CN=capstan-ca');
    assert.equal(ca.ca, true);
    assert.ok(ca.verify(ca.publicKey));
    assert.ok(ca.checkPrivateKey(createPrivateKey(first.caKey)));
  });

  it('signs a serving certificate for the local, in-cluster and given names', () => {
    const ca = new X509Certificate(first.caCert);
    const cert = new X509Certificate(first.serverCert);
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.verify(ca.publicKey));
    assert.equal(cert.ca, false);
    assert.ok(cert.checkPrivateKey(createPrivateKey(first.serverKey)));
    for (const dns of [
      'localhost',
      hostname().toLowerCase(),
      'api.example.test',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ]) {
      assert.equal(cert.checkHost(dns, { subject: 'never' }), dns, `DNS ${dns}`);
    }
    for (const ip of ['127.0.0.1', '::1', '192.0.2.10', '10.96.0.1']) assert.ok(cert.checkIP(ip), `IP ${ip}`);
    assert.equal(cert.checkHost('elsewhere.example.test', { subject: 'never' }), undefined);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']); // serverAuth
  });

  it('signs an admin client certificate for kubernetes-admin in system:masters', () => {
    const ca = new X509Certificate(first.caCert);
    const cert = new X509Certificate(first.adminCert);
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.verify(ca.publicKey));
    assert.deepEqual(cert.subject.split('\n').sort(), ['CN=kubernetes-admin', 'O=system:masters']);
    assert.ok(cert.checkPrivateKey(createPrivateKey(first.adminKey)));
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']); // clientAuth
  });

  it('makes a matching service-account key pair', () => {
    const priv = createPrivateKey(first.serviceAccountKey);
    assert.ok(['ec', 'rsa'].includes(priv.asymmetricKeyType!));
    assert.ok(createPublicKey(priv).equals(createPublicKey(first.serviceAccountPublicKey)));
  });

  it('reissues only the serving certificate when a new name is asked for', async () => {
    const dir2 = join(tmp, 'rename');
    const a = await ensureServingMaterial(dir2, []);
    const b = await ensureServingMaterial(dir2, ['10.1.2.3']);
    assert.notEqual(b.serverCert, a.serverCert);
    assert.ok(new X509Certificate(b.serverCert).checkIP('10.1.2.3'));
    assert.equal(b.caCert, a.caCert);
    assert.equal(b.caKey, a.caKey);
    assert.equal(b.adminCert, a.adminCert);
    assert.equal(b.serviceAccountKey, a.serviceAccountKey);
    // …and then keeps it.
    assert.deepEqual(await ensureServingMaterial(dir2, ['10.1.2.3']), b);
  });

  it('reissues a missing leaf from the existing CA and rewrites a missing public key', async () => {
    const dir3 = join(tmp, 'missing');
    const a = await ensureServingMaterial(dir3, []);
    unlinkSync(join(dir3, CERT_FILES.adminCert));
    unlinkSync(join(dir3, CERT_FILES.serviceAccountPublicKey));
    const b = await ensureServingMaterial(dir3, []);
    assert.equal(b.caCert, a.caCert);
    assert.notEqual(b.adminCert, a.adminCert);
    assert.ok(new X509Certificate(b.adminCert).checkIssued(new X509Certificate(a.caCert)));
    assert.equal(b.serviceAccountKey, a.serviceAccountKey);
    assert.ok(createPublicKey(b.serviceAccountPublicKey).equals(createPublicKey(a.serviceAccountPublicKey)));
  });

  it('refuses a CA certificate without its key', async () => {
    const dir4 = join(tmp, 'nokey');
    await ensureServingMaterial(dir4, []);
    unlinkSync(join(dir4, CERT_FILES.caKey));
    await assert.rejects(ensureServingMaterial(dir4, []), /ca\.crt and ca\.key/);
  });

  it('uses an operator-provided RSA CA (PKCS#1 key) as it is', async () => {
    const dir5 = join(tmp, 'rsa');
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
    const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const caCert = await x509.X509CertificateGenerator.createSelfSigned(
      { name: 'CN=operator-ca', keys, signingAlgorithm: alg, extensions: [new x509.BasicConstraintsExtension(true, undefined, true)] },
      webcrypto as never,
    );
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    const pkcs1 = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs1', format: 'pem' }) as string;
    mkdirSync(dir5);
    writeFileSync(join(dir5, CERT_FILES.caCert), caCert.toString('pem'));
    writeFileSync(join(dir5, CERT_FILES.caKey), pkcs1, { mode: 0o600 });
    const m = await ensureServingMaterial(dir5, []);
    assert.equal(m.caCert, caCert.toString('pem'));
    assert.equal(m.caKey, pkcs1);
    const ca = new X509Certificate(m.caCert);
    for (const leaf of [m.serverCert, m.adminCert]) {
      const x = new X509Certificate(leaf);
      assert.ok(x.checkIssued(ca) && x.verify(ca.publicKey));
    }
  });
});

describe('servingNames', () => {
  it('takes a name with a colon for an IPv6 address only when it is one', () => {
    const { dnsNames, ipAddresses } = servingNames(['[fd00::5]', '2001:DB8::7', 'fe80::1:2:3:4', 'api.example.test:6443', '1::2::3', '192.0.2.7']);
    for (const ip of ['::1', 'fd00::5', '2001:DB8::7', 'fe80::1:2:3:4', '192.0.2.7']) assert.ok(ipAddresses.includes(ip), `IP ${ip} in ${ipAddresses.join(' ')}`);
    for (const dns of ['api.example.test:6443', '1::2::3']) {
      assert.ok(dnsNames.includes(dns), `DNS ${dns} in ${dnsNames.join(' ')}`);
      assert.ok(!ipAddresses.includes(dns));
    }
  });
});

describe('issueClientCertificate', () => {
  it('puts the user in CN and each group in an O', async () => {
    const m = await ensureServingMaterial(join(tmp, 'main'), ['192.0.2.10', 'api.example.test']);
    const { cert, key } = await issueClientCertificate(m, 'jane', ['dev', 'ops'], 2);
    const x = new X509Certificate(cert);
    assert.deepEqual(x.subject.split('\n').sort(), ['CN=jane', 'O=dev', 'O=ops']);
    assert.ok(x.checkIssued(new X509Certificate(m.caCert)));
    assert.ok(x.checkPrivateKey(createPrivateKey(key)));
    const days = (new Date(x.validTo).getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 1.9 && days <= 2.01, `valid for ${days} days`);
  });
});

describe('TLS handshake with client certificates', () => {
  let material: ServingMaterial;
  let server: Server;
  let port = 0;
  const authenticate = authenticator({ apiAudiences: ['https://kubernetes.default.svc.cluster.local'], anonymous: true });
  const seen: { creds: PeerCredentials; user: unknown }[] = [];

  before(async () => {
    material = await ensureServingMaterial(join(tmp, 'main'), ['192.0.2.10', 'api.example.test']);
    server = createServer(
      { key: material.serverKey, cert: material.serverCert, ca: material.caCert, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        void (async () => {
          const creds = credentialsFromRequest(req);
          const user = await authenticate(creds);
          const peer = (req.socket as TLSSocket).getPeerCertificate();
          seen.push({ creds, user });
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ subject: peer.subject ?? null, user }));
        })();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function get(options: { cert?: string; key?: string; servername?: string; host?: string }): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: options.host ?? '127.0.0.1',
          port,
          path: '/',
          ca: material.caCert,
          cert: options.cert,
          key: options.key,
          servername: options.servername,
          agent: false,
        },
        (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('verifies the server for 127.0.0.1 and reads the admin certificate subject', async () => {
    const { body } = await get({ cert: material.adminCert, key: material.adminKey });
    assert.equal(body.subject.CN, 'kubernetes-admin');
    assert.equal(body.subject.O, 'system:masters');
    assert.deepEqual(body.user, { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  it('verifies the server under its in-cluster name', async () => {
    const { body } = await get({ servername: 'kubernetes.default.svc', cert: material.adminCert, key: material.adminKey });
    assert.equal(body.subject.CN, 'kubernetes-admin');
  });

  it('passes several groups on as O values', async () => {
    const c = await issueClientCertificate(material, 'jane', ['dev', 'ops']);
    const { body } = await get(c);
    assert.deepEqual(body.subject.O, ['dev', 'ops']);
    assert.deepEqual(body.user, { name: 'jane', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('without a client certificate the request is anonymous', async () => {
    const { body } = await get({});
    assert.equal(body.subject, null);
    assert.deepEqual(body.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('a certificate from another CA is rejected (401), not anonymous', async () => {
    const other = await ensureServingMaterial(join(tmp, 'other-ca'), []);
    const { body } = await get({ cert: other.adminCert, key: other.adminKey });
    assert.equal(body.subject.CN, 'kubernetes-admin'); // presented…
    assert.equal(body.user, 'invalid'); // …but not trusted
    assert.equal(seen.at(-1)!.creds.clientCertificateRejected, true);
    assert.equal(seen.at(-1)!.creds.clientCertificate, undefined);
  });

  it('a server certificate is not accepted as a client certificate', async () => {
    const { body } = await get({ cert: material.serverCert, key: material.serverKey });
    assert.equal(body.user, 'invalid');
  });

  it('reads the client certificate over HTTP/2 too', async () => {
    const { createSecureServer, connect } = await import('node:http2');
    const h2 = createSecureServer(
      { key: material.serverKey, cert: material.serverCert, ca: material.caCert, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        void authenticate(credentialsFromRequest(req)).then((user) => res.end(JSON.stringify(user)));
      },
    );
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    try {
      const client = connect(`https://127.0.0.1:${(h2.address() as AddressInfo).port}`, {
        ca: material.caCert,
        cert: material.adminCert,
        key: material.adminKey,
      });
      const body = await new Promise<string>((resolve, reject) => {
        const stream = client.request({ ':path': '/' });
        let data = '';
        stream.on('data', (c: Buffer) => (data += c));
        stream.on('end', () => resolve(data));
        stream.on('error', reject);
      });
      client.close();
      assert.deepEqual(JSON.parse(body), { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    } finally {
      await new Promise<void>((resolve) => h2.close(() => resolve()));
    }
  });
});
