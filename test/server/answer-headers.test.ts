// Every answer of a running server carries an Audit-Id and, with API Priority and Fairness on, the
// UIDs of the FlowSchema and priority level it was classified to: an object, a list, a watch, a
// Status error (404, 403, 400), the plain-text 404 of an unknown path, a create — over HTTP/1.1,
// where they are written with the status line (endpoints/response.ts), and over HTTP/2.
import assert from 'node:assert/strict';
import { connect, constants } from 'node:http2';
import { describe, it } from 'node:test';
import { startServer } from '../../src/server/server.js';
import { call, memoryServer, type Reply } from '../helpers.js';

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1beta2';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CM = '/api/v1/namespaces/default/configmaps';

describe('answer headers', { timeout: 60_000 }, () => {
  it('Audit-Id and the X-Kubernetes-PF-* UIDs are on every kind of answer', async () => {
    const server = await memoryServer();
    try {
      const uid = async (path: string) => (await call(server.url, 'GET', path)).json.metadata.uid as string;
      const exempt = { schema: await uid(`${FC}/flowschemas/exempt`), level: await uid(`${FC}/prioritylevelconfigurations/exempt`) };
      const globalDefault = { schema: await uid(`${FC}/flowschemas/global-default`), level: await uid(`${FC}/prioritylevelconfigurations/global-default`) };
      const answers: Array<[string, Reply, number, { schema: string; level: string }]> = [
        ['a create', await call(server.url, 'POST', CM, { body: { metadata: { name: 'a' } } }), 201, exempt],
        ['an object', await call(server.url, 'GET', `${CM}/a`), 200, exempt],
        ['a list', await call(server.url, 'GET', CM), 200, exempt],
        ['a watch', await call(server.url, 'GET', `${CM}?watch=true&timeoutSeconds=1`), 200, exempt],
        ['a 404 Status', await call(server.url, 'GET', `${CM}/none`), 404, exempt],
        ['a 400 Status', await call(server.url, 'POST', CM, { body: '{"metadata":' }), 400, exempt],
        ['a 403 Status', await call(server.url, 'GET', CM, { headers: { 'Impersonate-User': 'bob' } }), 403, globalDefault],
        ['a plain-text 404', await call(server.url, 'GET', '/no/such/path'), 404, exempt],
      ];
      for (const [what, r, status, expected] of answers) {
        assert.equal(r.status, status, `${what}: ${r.text}`);
        assert.match(String(r.headers['audit-id']), UUID, what);
        assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], expected.schema, what);
        assert.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], expected.level, what);
      }
      assert.match(String(answers[3]![1].headers['content-type']), /^application\/json/);
      // A given Audit-ID is answered back as it came.
      assert.equal((await call(server.url, 'GET', `${CM}/none`, { headers: { 'Audit-ID': 'given-id' } })).headers['audit-id'], 'given-id');
    } finally {
      await server.close();
    }
  });

  it('over HTTP/2 too', async () => {
    const server = await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '' });
    try {
      const m = server.material!;
      const session = connect(server.url, { ca: m.caCert, cert: m.adminCert, key: m.adminKey });
      try {
        const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
          const stream = session.request({ [constants.HTTP2_HEADER_PATH]: `${CM}/none` });
          stream.on('response', (h) => resolve(h));
          stream.on('error', reject);
          stream.resume();
          stream.end();
        });
        assert.equal(headers[':status'], 404);
        assert.match(String(headers['audit-id']), UUID);
        assert.match(String(headers['x-kubernetes-pf-flowschema-uid']), UUID);
        assert.match(String(headers['x-kubernetes-pf-prioritylevel-uid']), UUID);
      } finally {
        session.close();
      }
    } finally {
      await server.close();
    }
  });
});
