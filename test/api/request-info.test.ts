// Request info: what a request asks for, read once from its method, path and query.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestInfo } from '../../src/api/request-info.js';

const info = (method: string, url: string) => {
  const u = new URL(url, 'http://localhost');
  return requestInfo(method, u.pathname, u.searchParams);
};

describe('request info', { timeout: 10_000 }, () => {
  it('reads group, version, namespace, resource, name and subresource', () => {
    assert.deepEqual(info('GET', '/apis/apps/v1/namespaces/ns/deployments/web/scale'), {
      isResourceRequest: true, path: '/apis/apps/v1/namespaces/ns/deployments/web/scale', verb: 'get',
      apiPrefix: 'apis', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns', resource: 'deployments', name: 'web', subresource: 'scale',
      parts: ['deployments', 'web', 'scale'],
    });
    assert.deepEqual(info('GET', '/api/v1/nodes'), {
      isResourceRequest: true, path: '/api/v1/nodes', verb: 'list', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', resource: 'nodes', parts: ['nodes'],
    });
  });

  it('turns methods into verbs as the reference does', () => {
    const verb = (method: string, url: string) => info(method, url).verb;
    assert.equal(verb('GET', '/api/v1/namespaces/ns/pods'), 'list');
    assert.equal(verb('GET', '/api/v1/namespaces/ns/pods/p'), 'get');
    assert.equal(verb('HEAD', '/api/v1/namespaces/ns/pods/p'), 'get');
    assert.equal(verb('GET', '/api/v1/namespaces/ns/pods?watch=true'), 'watch');
    assert.equal(verb('GET', '/api/v1/namespaces/ns/pods?watch=1'), 'watch');
    assert.equal(verb('GET', '/api/v1/namespaces/ns/pods?watch=false'), 'list');
    // The reference's query conversion: only "0" and "false" (any case) are false once present.
    for (const yes of ['True', 'TRUE', 't', 'yes', '2', '']) assert.equal(verb('GET', `/api/v1/namespaces/ns/pods?watch=${yes}`), 'watch', `watch=${yes}`);
    for (const no of ['False', 'FALSE', 'fAlSe', '0']) assert.equal(verb('GET', `/api/v1/namespaces/ns/pods?watch=${no}`), 'list', `watch=${no}`);
    // A named object is read whatever watch says; only the deprecated /watch/ path watches one.
    assert.equal(verb('GET', '/api/v1/namespaces/ns/pods/p?watch=true'), 'get');
    assert.equal(verb('GET', '/api/v1/watch/namespaces/ns/pods/p'), 'watch');
    assert.equal(verb('POST', '/api/v1/namespaces/ns/pods'), 'create');
    assert.equal(verb('PUT', '/api/v1/namespaces/ns/pods/p'), 'update');
    assert.equal(verb('PATCH', '/api/v1/namespaces/ns/pods/p'), 'patch');
    assert.equal(verb('DELETE', '/api/v1/namespaces/ns/pods/p'), 'delete');
    assert.equal(verb('DELETE', '/api/v1/namespaces/ns/pods'), 'deletecollection');
  });

  it('finds a namespace itself cluster-scoped, with its status and finalize subresources', () => {
    const ns = info('PUT', '/api/v1/namespaces/team/finalize');
    assert.ok(ns.isResourceRequest);
    assert.equal(ns.resource, 'namespaces');
    assert.equal(ns.name, 'team');
    assert.equal(ns.subresource, 'finalize');
    assert.equal(ns.namespace, undefined);
    const inside = info('GET', '/api/v1/namespaces/team/configmaps');
    assert.ok(inside.isResourceRequest);
    assert.equal(inside.namespace, 'team');
    assert.equal(inside.resource, 'configmaps');
  });

  it('keeps the path after a proxy subresource in parts only', () => {
    const proxy = info('GET', '/api/v1/namespaces/ns/pods/p/proxy/metrics/x');
    assert.ok(proxy.isResourceRequest);
    assert.equal(proxy.name, 'p');
    assert.equal(proxy.subresource, 'proxy');
    assert.deepEqual(proxy.parts, ['pods', 'p', 'proxy', 'metrics', 'x']);
  });

  it('decodes escaped segments', () => {
    const r = info('GET', '/api/v1/namespaces/ns/configmaps/a%3Ab');
    assert.ok(r.isResourceRequest);
    assert.equal(r.name, 'a:b');
  });

  it('answers non-resource requests with their path and the lower-cased method', () => {
    for (const path of ['/healthz', '/version', '/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/openapi/v2']) {
      assert.deepEqual(info('GET', path), { isResourceRequest: false, path, verb: 'get' }, path);
    }
    assert.deepEqual(info('POST', '/api'), { isResourceRequest: false, path: '/api', verb: 'post' });
    // Shapes no resource has: too deep, or an empty segment.
    assert.equal(info('GET', '/api/v1/namespaces/ns/pods/p/status/extra').isResourceRequest, false);
    assert.equal(info('GET', '/api/v1/namespaces/ns/pods//status').isResourceRequest, false);
  });
});
