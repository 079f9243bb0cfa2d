// The aggregation layer against a real extension server: local APIServices, the front-proxy
// identity, proxying (lists, watches, errors passed through), the security cases, availability.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { issueClientCertificate } from '../../src/server/certs.js';
import { call, mustOk, readReply, until, type ClientTls, type Reply } from '../helpers.js';
import { ExtensionServer, nodeMetrics, OPENAPI_V3_HASH, podMetrics } from './extension-server.js';
import { availableOf, NAMESPACE, registerExtension, SERVICE } from './register.js';

const APISERVICE = 'v1beta1.metrics.k8s.io';

/** A GET of a path exactly as written (no URL normalization), with extra headers. */
function rawGet(base: string, path: string, tls: ClientTls, headers: Record<string, string> = {}): Promise<Reply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: url.hostname, port: url.port, path, method: 'GET', headers: { Accept: 'application/json', ...headers }, ...tls }, (res) => readReply(res).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

/** A request to switch protocols, written by hand over TLS (HTTP/1.1), with `early` bytes right after its headers. */
class RawUpgrade {
  received = '';
  ended = false;
  private constructor(readonly socket: TLSSocket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { this.received += chunk; });
    socket.on('end', () => { this.ended = true; });
    socket.on('error', () => { this.ended = true; });
  }

  static open(base: string, path: string, tls: ClientTls, headers: Record<string, string>, early = ''): Promise<RawUpgrade> {
    const url = new URL(base);
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ALPNProtocols: ['http/1.1'], ...tls }, () => {
        const lines = [`GET ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: Upgrade', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
        socket.write(`${lines.join('\r\n')}\r\n\r\n${early}`);
        resolve(new RawUpgrade(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Waits until what was received contains `text`. */
  async waitFor(text: string): Promise<void> {
    await until(() => `${JSON.stringify(text)} in ${JSON.stringify(this.received)}`, () => this.received.includes(text), 5_000);
  }
}

describe('aggregation layer', { timeout: 120_000 }, () => {
  let dir: string;
  let server: RunningServer;
  let tls: ClientTls;
  let ext: ExtensionServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-aggregation-'));
    server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: dir, apiServiceRecheckMs: 300, requestTimeoutMs: 2_000 });
    tls = { ca: server.material!.caCert, cert: server.material!.adminCert, key: server.material!.adminKey };
    const cm = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', { tls }));
    ext = await ExtensionServer.create({
      requestheaderCa: cm.json.data['requestheader-client-ca-file'],
      allowedNames: JSON.parse(cm.json.data['requestheader-allowed-names']),
      knownUsers: ['kubernetes-admin', 'system:kube-aggregator'],
      serviceName: `${SERVICE}.${NAMESPACE}.svc`,
    });
    ext.nodes = [nodeMetrics('node-a', '250m', '1024Mi')];
    ext.pods = [podMetrics('default', 'web-1', '12m', '34Mi')];
    await ext.listen();
    await registerExtension(server.url, tls, ext);
    await until('the APIService is Available', async () => (await availableOf(server.url, tls, APISERVICE))?.status === 'True');
  });

  after(async () => {
    await ext?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a local APIService per built-in group-version, as the reference', async () => {
    const r = await mustOk(call(server.url, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps', { tls }));
    assert.deepEqual(r.json.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    assert.deepEqual(r.json.spec, { group: 'apps', groupPriorityMinimum: 17800, version: 'v1', versionPriority: 15 });
    assert.deepEqual(r.json.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]), [['Available', 'True', 'Local', 'Local APIServices are always available']]);
    const core = await mustOk(call(server.url, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.', { tls }));
    assert.deepEqual(core.json.spec, { group: '', groupPriorityMinimum: 18000, version: 'v1', versionPriority: 1 });
    const v2 = await mustOk(call(server.url, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v2.autoscaling', { tls }));
    assert.equal(v2.json.spec.versionPriority, 30);
  });

  it('follows CustomResourceDefinitions with automanaged=true APIServices', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await mustOk(call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { tls, body: crd }), 201);
    const made = await until('v1.example.com made', async () => {
      const r = await call(server.url, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com', { tls });
      return r.status === 200 && r.json.status?.conditions ? r.json : undefined;
    });
    assert.equal(made.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'true');
    assert.deepEqual(made.spec, { group: 'example.com', groupPriorityMinimum: 1000, version: 'v1', versionPriority: 100 });
    assert.equal(made.status.conditions[0].reason, 'Local');
    await mustOk(call(server.url, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com', { tls }));
    await until('v1.example.com gone', async () => (await call(server.url, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com', { tls })).status === 404);
  });

  it('lists the reference\'s aggregator checks in /readyz', async () => {
    const r = await mustOk(call(server.url, 'GET', '/readyz?verbose', { tls }));
    const names = r.text.split('\n').filter((l) => l.startsWith('[+]')).map((l) => l.slice(3, -3));
    const wanted = ['poststarthook/start-cluster-authentication-info-controller', 'poststarthook/start-kube-aggregator-informers', 'poststarthook/apiservice-registration-controller',
      'poststarthook/apiservice-status-available-controller', 'poststarthook/kube-apiserver-autoregistration', 'autoregister-completion'];
    assert.deepEqual(names.filter((n) => wanted.includes(n)), wanted);
  });

  it('publishes extension-apiserver-authentication and keeps its own front-proxy files private', async () => {
    const cm = await mustOk(call(server.url, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', { tls }));
    assert.deepEqual(Object.keys(cm.json.data).sort(), ['client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix', 'requestheader-group-headers', 'requestheader-username-headers']);
    assert.equal(cm.json.data['requestheader-username-headers'], '["X-Remote-User"]');
    assert.equal(cm.json.data['requestheader-group-headers'], '["X-Remote-Group"]');
    assert.equal(cm.json.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
    assert.equal(cm.json.data['requestheader-allowed-names'], '["front-proxy-client"]');
    assert.equal(cm.json.data['client-ca-file'], server.material!.caCert);
    for (const file of ['front-proxy-ca.key', 'front-proxy-client.key', 'front-proxy-ca.crt']) assert.equal(statSync(join(dir, 'pki', file)).mode & 0o777, 0o600, file);
  });

  it('marks the remote APIService Passed, and lists its group after the others by priority', async () => {
    assert.deepEqual(await availableOf(server.url, tls, APISERVICE), { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed', lastTransitionTime: (await availableOf(server.url, tls, APISERVICE) as { lastTransitionTime?: string }).lastTransitionTime });
    const apis = await mustOk(call(server.url, 'GET', '/apis', { tls }));
    const names = apis.json.groups.map((g: { name: string }) => g.name);
    assert.equal(names.at(-1), 'metrics.k8s.io');
    assert.equal(names[0], 'apiregistration.k8s.io');
    assert.deepEqual(apis.json.groups.at(-1), { name: 'metrics.k8s.io', versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' } });
    const group = await mustOk(call(server.url, 'GET', '/apis/metrics.k8s.io', { tls }));
    assert.equal(group.json.kind, 'APIGroup');
    const resources = await mustOk(call(server.url, 'GET', '/apis/metrics.k8s.io/v1beta1', { tls }));
    assert.deepEqual(resources.json.resources.map((r: { name: string }) => r.name), ['nodes', 'pods']);
  });

  it('merges the extension\'s OpenAPI v2 and serves its v3 document', async () => {
    const v2 = await until('/openapi/v2 has the extension\'s paths', async () => {
      const r = await call(server.url, 'GET', '/openapi/v2', { tls });
      return r.json?.paths?.['/apis/metrics.k8s.io/v1beta1/nodes'] ? r : undefined;
    }).then((r) => {
      // Paths outside the group-version and definitions the document has are not taken (the text would hold them twice).
      assert.equal(r.text.split('"/version/":').length, 2);
      assert.equal(r.text.split('"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":').length, 2);
      return r.json;
    });
    assert.ok(v2.definitions['io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics']);
    assert.notEqual(v2.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].description, 'the extension\'s copy');
    const v3 = await mustOk(call(server.url, 'GET', '/openapi/v3/apis/metrics.k8s.io/v1beta1', { tls }));
    assert.equal(v3.json.info.title, 'Kubernetes metrics-server');
  });

  it('proxies with the front-proxy certificate and the user in headers, never the client\'s credentials', async () => {
    const before = ext.seen.length;
    const r = await rawGet(server.url, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', tls, {
      Authorization: 'Bearer not-for-the-extension', 'X-Remote-User': 'mallory', 'X-Remote-Group': 'evil', 'X-Remote-Extra-Scopes': 'all',
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['web-1']);
    const seen = ext.seen.slice(before).find((s) => s.url.includes('/namespaces/default/pods'))!;
    assert.equal(seen.clientCn, 'front-proxy-client');
    assert.equal(seen.headers['authorization'], undefined);
    assert.equal(seen.headers['x-remote-user'], 'kubernetes-admin');
    assert.equal(seen.headers['x-remote-group'], 'system:masters, system:authenticated');
    assert.equal(seen.headers['x-remote-extra-scopes'], undefined);
  });

  it('passes the extension\'s own refusal through (403 for a user it does not know)', async () => {
    const mallory = await issueClientCertificate(server.material!, 'mallory', ['system:masters']);
    const r = await rawGet(server.url, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', { ca: tls.ca, cert: mallory.cert, key: mallory.key });
    assert.equal(r.status, 403);
    assert.equal(r.json.reason, 'Forbidden');
    assert.match(r.json.message, /User "mallory" cannot list/);
  });

  it('keeps paths inside the group-version', async () => {
    const before = ext.seen.length;
    for (const path of ['/apis/metrics.k8s.io/v1beta1/../../../api/v1/secrets', '/apis/metrics.k8s.io/v1beta1/%2e%2e/%2e%2e/api/v1/secrets', '/apis/metrics.k8s.io/v1beta1/namespaces%2F..%2F..%2Fx/pods', '/apis/metrics.k8s.io/v1beta1/a%5c..%5cb']) {
      const r = await rawGet(server.url, path, tls);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.json.kind, 'Status');
    }
    // (The availability checks and OpenAPI downloads go on meanwhile: only those reached it.)
    assert.deepEqual(ext.seen.slice(before).filter((r) => !['/apis/metrics.k8s.io/v1beta1', '/openapi/v2', '/openapi/v3'].includes(r.url)), [], 'nothing else reached the extension');
  });

  it('lists the extension\'s group-version in the /openapi/v3 root with its own hash, and no other entry of its root', async () => {
    const root = await until('the v3 root names metrics.k8s.io', async () => {
      const r = await call(server.url, 'GET', '/openapi/v3', { tls });
      return r.json?.paths?.['apis/metrics.k8s.io/v1beta1'] ? r.json : undefined;
    });
    const url = `/openapi/v3/apis/metrics.k8s.io/v1beta1?hash=${OPENAPI_V3_HASH}`;
    assert.deepEqual(root.paths['apis/metrics.k8s.io/v1beta1'], { serverRelativeURL: url });
    assert.match(root.paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    const keys = Object.keys(root.paths);
    assert.deepEqual(keys, [...keys].sort());
    const doc = await mustOk(call(server.url, 'GET', url, { tls }));
    assert.equal(doc.json.info.title, 'Kubernetes metrics-server');
  });

  it('switches protocols through the proxy and joins the two connections, with the front-proxy identity', async () => {
    const before = ext.seen.length;
    const up = await RawUpgrade.open(server.url, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1/exec?command=sh', tls, {
      Upgrade: 'SPDY/3.1', Authorization: 'Bearer not-for-the-extension', 'X-Remote-User': 'mallory', 'X-Remote-Group': 'evil',
    }, 'early');
    await up.waitFor('echo:early');
    assert.match(up.received, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
    const head = up.received.slice(0, up.received.indexOf('\r\n\r\n')).toLowerCase();
    assert.match(head, /\r\nupgrade: spdy\/3\.1(\r\n|$)/);
    assert.match(head, /\r\nconnection: upgrade(\r\n|$)/);
    assert.ok(up.received.includes('\r\n\r\nhello kubernetes-admin\n'), up.received);
    up.socket.write('ping');
    await up.waitFor('echo:ping');
    const seen = ext.seen.slice(before).find((r) => r.url.includes('/exec'))!;
    assert.equal(seen.clientCn, 'front-proxy-client');
    assert.equal(seen.headers['authorization'], undefined);
    assert.equal(seen.headers['x-remote-user'], 'kubernetes-admin');
    assert.equal(seen.headers['x-remote-group'], 'system:masters, system:authenticated');
    assert.equal(seen.headers['upgrade'], 'SPDY/3.1');
    up.socket.destroy();
    // The server goes on answering.
    await mustOk(call(server.url, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes', { tls }));
  });

  it('answers an upgrade the extension refuses with its refusal, and closes the connection', async () => {
    const mallory = await issueClientCertificate(server.material!, 'mallory', ['system:masters']);
    const up = await RawUpgrade.open(server.url, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1/exec', { ca: tls.ca, cert: mallory.cert, key: mallory.key }, { Upgrade: 'SPDY/3.1' });
    await until('closed', () => up.ended, 5_000);
    assert.match(up.received, /^HTTP\/1\.1 403 Forbidden\r\n/);
    const body = JSON.parse(up.received.slice(up.received.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''));
    assert.equal(body.reason, 'Forbidden');
    assert.match(body.message, /User "mallory" cannot list/);
  });

  it('refuses an upgrade its own authorization denies before anything is dialed', async () => {
    const nobody = await issueClientCertificate(server.material!, 'nobody', []);
    const before = ext.seen.length;
    const up = await RawUpgrade.open(server.url, '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1/exec', { ca: tls.ca, cert: nobody.cert, key: nobody.key }, { Upgrade: 'websocket' });
    await until('closed', () => up.ended, 5_000);
    assert.match(up.received, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(up.received, /"reason":"Forbidden"/);
    assert.match(up.received, /User \\"nobody\\" cannot get resource \\"pods\/exec\\" in API group \\"metrics.k8s.io\\"/);
    assert.equal(ext.seen.slice(before).filter((r) => r.url.includes('/exec')).length, 0);
  });

  it('streams a watch through the proxy', async () => {
    const url = new URL(server.url);
    const event = await new Promise<{ type: string; object: { metadata: { name: string } } }>((resolve, reject) => {
      const req = httpsRequest({ host: url.hostname, port: url.port, path: '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?watch=true', ...tls }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          const nl = text.indexOf('\n');
          if (nl >= 0) {
            resolve(JSON.parse(text.slice(0, nl)));
            req.destroy();
          }
        });
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata.name, 'web-1');
  });

  it('times a slow extension out with a Status', async () => {
    const started = Date.now();
    const r = await rawGet(server.url, '/apis/metrics.k8s.io/v1beta1/namespaces/slow/pods', tls);
    assert.equal(r.status, 504);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.reason, 'Timeout');
    assert.ok(Date.now() - started < 10_000);
    // The server still answers.
    await mustOk(call(server.url, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes', { tls }));
  });

  it('goes unavailable when the extension stops, answers 503 and leaves discovery; comes back when it returns', async () => {
    await ext.close();
    const down = await until('FailedDiscoveryCheck', async () => {
      const c = await availableOf(server.url, tls, APISERVICE);
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(down.reason, 'FailedDiscoveryCheck');
    assert.match(down.message!, /^failing or missing response from https:\/\/[\d.]+:\d+\/apis\/metrics\.k8s\.io\/v1beta1: /);
    const r = await call(server.url, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes', { tls });
    assert.equal(r.status, 503);
    assert.equal(r.text, 'service unavailable\n');
    const apis = await mustOk(call(server.url, 'GET', '/apis', { tls }));
    assert.ok(!apis.json.groups.some((g: { name: string }) => g.name === 'metrics.k8s.io'));
    // The reference's availability metrics: the gauge for every APIService, the counter by reason.
    const metrics = (await mustOk(call(server.url, 'GET', '/metrics', { tls }))).text;
    assert.match(metrics, /^aggregator_unavailable_apiservice\{name="v1beta1\.metrics\.k8s\.io"\} 1$/m);
    assert.match(metrics, /^aggregator_unavailable_apiservice\{name="v1\.apps"\} 0$/m);
    assert.match(metrics, /^aggregator_unavailable_apiservice_total\{name="v1beta1\.metrics\.k8s\.io",reason="FailedDiscoveryCheck"\} [1-9]\d*$/m);
    await ext.listen();
    await until('Available again', async () => (await availableOf(server.url, tls, APISERVICE))?.status === 'True');
    await mustOk(call(server.url, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes', { tls }));
    assert.match((await mustOk(call(server.url, 'GET', '/metrics', { tls }))).text, /^aggregator_unavailable_apiservice\{name="v1beta1\.metrics\.k8s\.io"\} 0$/m);
  });

  it('says MissingEndpoints and ServiceNotFound, and dials nothing else', async () => {
    await mustOk(call(server.url, 'DELETE', `/api/v1/namespaces/${NAMESPACE}/endpoints/${SERVICE}`, { tls }));
    const missing = await until('MissingEndpoints', async () => {
      const c = await availableOf(server.url, tls, APISERVICE);
      return c?.status === 'False' ? c : undefined;
    });
    assert.deepEqual([missing.reason, missing.message], ['MissingEndpoints', `cannot find endpoints for service/${SERVICE} in "${NAMESPACE}"`]);
    await mustOk(call(server.url, 'DELETE', `/api/v1/namespaces/${NAMESPACE}/services/${SERVICE}`, { tls }));
    const gone = await until('ServiceNotFound', async () => {
      const c = await availableOf(server.url, tls, APISERVICE);
      return c?.reason === 'ServiceNotFound' ? c : undefined;
    });
    assert.equal(gone.message, `service/${SERVICE} in "${NAMESPACE}" is not present`);
    assert.equal((await call(server.url, 'GET', '/apis/metrics.k8s.io/v1beta1/nodes', { tls })).status, 503);
  });
});
