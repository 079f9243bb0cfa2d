// Front-proxy (request-header) authentication of requests to capstan itself, with
// --requestheader-client-ca-file and the proxy client certificate given as flags.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { issueCertificate, newCertificateAuthority } from '../../src/server/certs.js';
import { call, mustOk, type ClientTls } from '../helpers.js';

describe('request-header authentication', { timeout: 60_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let proxy: ClientTls;
  let stranger: ClientTls;
  let admin: ClientTls;
  let ca: { cert: string; key: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-requestheader-'));
    ca = await newCertificateAuthority('my-front-proxy-ca');
    const client = await issueCertificate(ca, { commonName: 'aggregator', usage: 'client' });
    const other = await issueCertificate(ca, { commonName: 'someone-else', usage: 'client' });
    writeFileSync(join(dir, 'fp-ca.crt'), ca.cert);
    writeFileSync(join(dir, 'fp.crt'), client.cert);
    writeFileSync(join(dir, 'fp.key'), client.key, { mode: 0o600 });
    server = await startServer({
      bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: join(dir, 'data'),
      requestheaderClientCaFile: join(dir, 'fp-ca.crt'), proxyClientCertFile: join(dir, 'fp.crt'), proxyClientKeyFile: join(dir, 'fp.key'),
      requestheaderAllowedNames: ['aggregator'], requestheaderUsernameHeaders: ['X-Remote-User'], requestheaderGroupHeaders: ['X-Remote-Group'], requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    });
    const caCert = server.material!.caCert;
    proxy = { ca: caCert, cert: client.cert, key: client.key };
    stranger = { ca: caCert, cert: other.cert, key: other.key };
    admin = { ca: caCert, cert: server.material!.adminCert, key: server.material!.adminKey };
  });

  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the user from the headers of an allowed front proxy', async () => {
    const denied = await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { tls: proxy, headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'team-a' } });
    assert.equal(denied.status, 403);
    assert.match(denied.json.message, /^pods is forbidden: User "alice" cannot list resource "pods"/);
    await mustOk(call(server.url, 'GET', '/api/v1/namespaces/default/pods', { tls: proxy, headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' } }));
  });

  it('refuses a front-proxy certificate whose name is not allowed, or that names nobody', async () => {
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { tls: stranger, headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' } })).status, 401);
    assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { tls: proxy })).status, 401);
  });

  it('ignores the headers from an ordinary client', async () => {
    const r = await call(server.url, 'GET', '/api/v1/namespaces/default/pods', { tls: admin, headers: { 'X-Remote-User': 'alice' } });
    assert.equal(r.status, 200);
  });

  it('publishes the given front-proxy CA and names', async () => {
    const cm = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', { tls: admin }));
    assert.equal(cm.json.data['requestheader-client-ca-file'], ca.cert);
    assert.equal(cm.json.data['requestheader-allowed-names'], '["aggregator"]');
  });
});
