// Request info: what a request asks for, read once from its method, path and query.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedRequestTarget, requestInfo, splitRequestTarget } from '../../src/api/request-info.js';

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

  // Issue 14: paths are read as Go's server reads them, never resolved as a browser would.
  const raw = (method: string, target: string) => {
    const { path, query } = splitRequestTarget(target);
    return requestInfo(method, path, new URLSearchParams(query));
  };

  it('keeps dot segments as segments, escaped or not', () => {
    const dots = raw('GET', '/api/v1/namespaces/bad/../default/configmaps');
    assert.ok(dots.isResourceRequest);
    assert.deepEqual([dots.namespace, dots.resource, dots.name, dots.subresource, dots.verb], ['bad', '..', 'default', 'configmaps', 'get']);
    assert.equal(dots.path, '/api/v1/namespaces/bad/../default/configmaps');
    const escaped = raw('GET', '/api/v1/namespaces/%2e%2e/configmaps');
    assert.ok(escaped.isResourceRequest);
    assert.deepEqual([escaped.namespace, escaped.resource, escaped.name, escaped.verb], ['..', 'configmaps', undefined, 'list']);
    const name = raw('GET', '/api/v1/namespaces/bad/configmaps/..');
    assert.ok(name.isResourceRequest);
    assert.deepEqual([name.namespace, name.resource, name.name], ['bad', 'configmaps', '..']);
  });

  it('decodes the whole path before splitting it, as Go\'s URL.Path: an escaped slash separates', () => {
    const r = raw('GET', '/api/v1/namespaces/ns/configmaps/a%2Fstatus?watch=0');
    assert.ok(r.isResourceRequest);
    assert.deepEqual([r.name, r.subresource, r.verb], ['a', 'status', 'get']);
    assert.equal(raw('GET', '/version%2F').path, '/version');
    const utf8 = raw('GET', '/api/v1/namespaces/ns/configmaps/%C3%A9t%C3%A9');
    assert.ok(utf8.isResourceRequest);
    assert.equal(utf8.name, 'été');
  });

  it('refuses a bad escape as Go\'s URL parser does (the server answers a bare 400)', () => {
    for (const path of ['/api/v1/namespaces/ns/configmaps/%', '/api/v1/namespaces/ns/configmaps/%zz', '/api/%2', 'api/v1']) {
      assert.throws(() => raw('GET', path), MalformedRequestTarget, path);
    }
  });

  it('refuses a control character anywhere in the path, and reads the path of an absolute-form target', () => {
    for (const path of ['/api/v1/namespaces/ns/configmaps/a\u0001b', '/api/v1/namespaces/ns/configmaps/a\u007f', '/\tapi']) {
      assert.throws(() => raw('GET', path), MalformedRequestTarget, JSON.stringify(path));
    }
    const absolute = raw('GET', 'http://example.com:6443/api/v1/namespaces/ns/configmaps/c?watch=1');
    assert.ok(absolute.isResourceRequest);
    assert.deepEqual([absolute.path, absolute.name, absolute.verb], ['/api/v1/namespaces/ns/configmaps/c', 'c', 'get']);
    assert.deepEqual(raw('GET', 'https://example.com'), { isResourceRequest: false, path: '/', verb: 'get' });
  });

  it('drops trailing slashes (keeping the path as sent), splits on every slash, and decodes raw UTF-8 characters', () => {
    const trailing = raw('GET', '/api/v1/namespaces/ns/configmaps/c//');
    assert.ok(trailing.isResourceRequest);
    assert.deepEqual([trailing.path, trailing.name], ['/api/v1/namespaces/ns/configmaps/c', 'c']);
    assert.deepEqual(raw('GET', '/version/'), { isResourceRequest: false, path: '/version', verb: 'get', requestPath: '/version/' });
    assert.deepEqual(raw('GET', '/'), { isResourceRequest: false, path: '/', verb: 'get' });
    // An empty segment is a segment: a leading one makes a path capstan does not route as a resource
    // (the reference's reading of it, trimmed of slashes, kept aside), a later one a version of ''.
    const leading = raw('GET', '//api/v1/namespaces');
    assert.equal(leading.isResourceRequest, false);
    assert.deepEqual(!leading.isResourceRequest && leading.asResource, { verb: 'list', apiGroup: '', apiVersion: 'v1', resource: 'namespaces' });
    const inner = raw('GET', '/api//v1/namespaces');
    assert.ok(inner.isResourceRequest);
    assert.deepEqual([inner.apiVersion, inner.resource, inner.name], ['', 'v1', 'namespaces']);
    // Node hands the request line over a byte per character: é sent raw is \u00c3\u00a9.
    const utf8 = raw('GET', '/api/v1/namespaces/ns/configmaps/\u00c3\u00a9t\u00c3\u00a9');
    assert.ok(utf8.isResourceRequest);
    assert.equal(utf8.name, 'été');
  });

  it('gives a method it knows no verb for no verb (routing refuses it), as the reference', () => {
    assert.equal(raw('OPTIONS', '/api/v1/namespaces/ns/pods').verb, '');
    assert.equal(raw('FOO', '/api/v1/namespaces/ns/pods/p').verb, '');
  });
});
