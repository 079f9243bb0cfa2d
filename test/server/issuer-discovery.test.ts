// Service-account issuer discovery, as a relying party uses it: the OIDC configuration names the
// issuer and the key set, the key set verifies the tokens capstan issues, and who may read them
// is the bootstrap policy's (every service account; not anonymous).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { call, mustOk, type ClientTls } from '../helpers.js';

const CONFIG = '/.well-known/openid-configuration';
const JWKS = '/openid/v1/jwks';

describe('service-account issuer discovery', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-oidc-'));
  const servers: RunningServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function tlsServer(name: string, extra: Parameters<typeof startServer>[0] = {}) {
    const server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: join(dir, name), ...extra });
    servers.push(server);
    const m = server.material!;
    const admin: ClientTls = { ca: m.caCert, cert: m.adminCert, key: m.adminKey };
    const anonymous: ClientTls = { ca: m.caCert };
    return { server, admin, anonymous };
  }

  /** A bound token of a new service account in `default`. */
  async function serviceAccountToken(url: string, admin: ClientTls, name: string): Promise<string> {
    await mustOk(call(url, 'POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name } }, tls: admin }), 201);
    const r = await mustOk(call(url, 'POST', `/api/v1/namespaces/default/serviceaccounts/${name}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }, tls: admin }), 201);
    return r.json.status.token as string;
  }

  let server: RunningServer;
  let admin: ClientTls;
  let anonymous: ClientTls;
  before(async () => {
    ({ server, admin, anonymous } = await tlsServer('default'));
  });

  it('serves the configuration and the key set as the reference: content, content types, caching', async () => {
    const config = await mustOk(call(server.url, 'GET', CONFIG, { tls: admin }));
    assert.equal(config.headers['content-type'], 'application/json');
    assert.equal(config.headers['cache-control'], 'public, max-age=3600');
    assert.equal(config.text, JSON.stringify({
      issuer: 'https://kubernetes.default.svc.cluster.local',
      jwks_uri: `https://127.0.0.1:${server.url.split(':').pop()}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    }));
    const keys = await mustOk(call(server.url, 'GET', JWKS, { tls: admin }));
    assert.equal(keys.headers['content-type'], 'application/jwk-set+json');
    assert.equal(keys.headers['cache-control'], 'public, max-age=3600');
    assert.equal(keys.json.keys.length, 1);
    assert.deepEqual(Object.keys(keys.json.keys[0]), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    assert.equal(keys.json.keys[0].use, 'sig');
    assert.equal(keys.json.keys[0].alg, 'ES256');
    assert.equal((await call(server.url, 'POST', JWKS, { tls: admin, body: {} })).status, 405);
  });

  it('a token capstan issues verifies against the key set, with the configured issuer', async () => {
    const token = await serviceAccountToken(server.url, admin, 'relying');
    const keys = (await mustOk(call(server.url, 'GET', JWKS, { tls: admin }))).json as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(keys), { issuer: 'https://kubernetes.default.svc.cluster.local' });
    assert.equal(payload.sub, 'system:serviceaccount:default:relying');
    assert.equal(protectedHeader.kid, keys.keys[0]!.kid);
  });

  it('every service account may read them; anonymous requests may not (the bootstrap policy)', async () => {
    const token = await serviceAccountToken(server.url, admin, 'reader');
    const bearer = { tls: anonymous, headers: { Authorization: `Bearer ${token}` } };
    assert.equal((await call(server.url, 'GET', CONFIG, bearer)).status, 200);
    assert.equal((await call(server.url, 'GET', JWKS, bearer)).status, 200);
    const anon = await call(server.url, 'GET', CONFIG, { tls: anonymous });
    assert.equal(anon.status, 403);
    assert.equal(anon.json.message, 'forbidden: User "system:anonymous" cannot get path "/.well-known/openid-configuration"');
  });

  it('--service-account-issuer and --service-account-jwks-uri: the configuration, the tokens and the API audience follow', async () => {
    const issuer = 'https://issuer.example.test';
    const custom = await tlsServer('custom', { serviceAccountIssuer: issuer, serviceAccountJwksUri: 'https://keys.example.test/openid/v1/jwks' });
    const config = await mustOk(call(custom.server.url, 'GET', CONFIG, { tls: custom.admin }));
    assert.equal(config.json.issuer, issuer);
    assert.equal(config.json.jwks_uri, 'https://keys.example.test/openid/v1/jwks');
    const token = await serviceAccountToken(custom.server.url, custom.admin, 'custom');
    const keys = (await mustOk(call(custom.server.url, 'GET', JWKS, { tls: custom.admin }))).json as JSONWebKeySet;
    const { payload } = await jwtVerify(token, createLocalJWKSet(keys), { issuer, audience: issuer });
    assert.equal(payload.iss, issuer);
    // The token authenticates (its audience is the API's).
    const review = await mustOk(call(custom.server.url, 'GET', '/api', { tls: custom.anonymous, headers: { Authorization: `Bearer ${token}` } }));
    assert.equal(review.json.kind, 'APIVersions');
  });

  it('an issuer that is not an https URL is not served, as the reference', async () => {
    const plain = await tlsServer('plain', { serviceAccountIssuer: 'my-cluster' });
    assert.equal((await call(plain.server.url, 'GET', CONFIG, { tls: plain.admin })).status, 404);
    const paths = (await mustOk(call(plain.server.url, 'GET', '/', { tls: plain.admin }))).json.paths as string[];
    assert.ok(!paths.includes(CONFIG));
  });
});
