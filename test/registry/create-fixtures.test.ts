// Creates of the reference's manifests (test/fixtures/reference/create) compared with what it stored:
// whole objects, managedFields included, for every built-in kind — sent in JSON, and sent in
// Protobuf (as client-go and controller-runtime send them), each then updated in Protobuf. Left out: the review APIs and
// TokenRequest (create-only answers, nothing is stored or defaulted; test/auth covers them) and
// the custom resource (served once CustomResourceDefinitions are).
//
// Where a difference is work that is not done yet, the fixture lists the JSON paths it leaves
// out of the comparison and who will fill them. Such a path must still differ: once it matches,
// the test fails so that the entry is removed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { encodeProtobufObject } from '../../src/encoding/protobuf-encode.js';
import { PROTOBUF_MEDIA_TYPE } from '../../src/encoding/protobuf.js';
import { call, fixture, memoryServer, placeholders, type Fixture } from '../helpers.js';

type BodyEncoding = 'json' | 'protobuf';

type Pending = Readonly<Record<string, string>>;


/** Values drawn at random from a pool (addresses, ports): both sides must hold one of this shape. */
const IPV4 = /^(10\.96\.\d{1,3}\.\d{1,3}|<cluster-ip>)$/;
const isPort = (v: unknown) => v === '<node-port>' || (typeof v === 'number' && v >= 30000 && v <= 32767);
// (The fixtures carry placeholders for them: <cluster-ip>, <node-port>.)
const ALLOCATED: Readonly<Record<string, Readonly<Record<string, (v: unknown) => boolean>>>> = {
  'core-v1-services-clusterip': { 'spec.clusterIP': (v) => IPV4.test(String(v)), 'spec.clusterIPs[0]': (v) => IPV4.test(String(v)) },
  'core-v1-services-nodeport': {
    'spec.clusterIP': (v) => IPV4.test(String(v)), 'spec.clusterIPs[0]': (v) => IPV4.test(String(v)),
    'spec.ports[0].nodePort': isPort,
  },
};

// In creation order: what a fixture refers to is created before it.
const FIXTURES: Readonly<Record<string, Pending>> = {
  'core-v1-configmaps': {},
  'core-v1-secrets-opaque': {},
  'core-v1-secrets-dockerconfigjson': {},
  'core-v1-secrets-tls': {},
  'core-v1-serviceaccounts': {},
  'core-v1-secrets-service-account-token': {},
  'core-v1-pods': {},
  'core-v1-podtemplates': {},
  'core-v1-replicationcontrollers': {},
  'core-v1-services-clusterip': {},
  'core-v1-services-headless': {},
  'core-v1-services-nodeport': {},
  'core-v1-services-externalname': {},
  'core-v1-endpoints': {},
  'core-v1-events': {},
  'core-v1-limitranges': {},
  'core-v1-resourcequotas': {},
  'core-v1-namespaces': {},
  'core-v1-nodes': {},
  'core-v1-persistentvolumes': {},
  'core-v1-persistentvolumeclaims': {},
  'apps-v1-deployments': {},
  'apps-v1-replicasets': {},
  'apps-v1-statefulsets': {},
  'apps-v1-daemonsets': {},

  'apps-v1-controllerrevisions': {},
  'batch-v1-jobs': {},

  'batch-v1-cronjobs': {},
  'autoscaling-v1-horizontalpodautoscalers': {},
  'autoscaling-v2-horizontalpodautoscalers': {},
  'autoscaling-v2beta2-horizontalpodautoscalers': {},
  'policy-v1-poddisruptionbudgets': {},
  'networking.k8s.io-v1-ingressclasses': {},
  'networking.k8s.io-v1-ingresses': {},
  'networking.k8s.io-v1-networkpolicies': {},
  'discovery.k8s.io-v1-endpointslices': {},
  'events.k8s.io-v1-events': {},
  'coordination.k8s.io-v1-leases': {},
  'certificates.k8s.io-v1-certificatesigningrequests': {
    // The requester is recorded (groups match); the recorder was user "admin" (uid "admin-uid"),
    // the test server's loopback user is system:admin without a uid.
    'spec.username': 'a different requester',
    'spec.uid': 'a different requester',
  },
  'rbac.authorization.k8s.io-v1-roles': {},
  'rbac.authorization.k8s.io-v1-rolebindings': {},
  'rbac.authorization.k8s.io-v1-clusterroles': {},
  'rbac.authorization.k8s.io-v1-clusterrolebindings': {},
  'scheduling.k8s.io-v1-priorityclasses': {},
  'node.k8s.io-v1-runtimeclasses': {},
  'storage.k8s.io-v1-storageclasses': {},
  'storage.k8s.io-v1-csidrivers': {},
  'storage.k8s.io-v1-csinodes': {},
  'storage.k8s.io-v1-volumeattachments': {},
  'storage.k8s.io-v1-csistoragecapacities': {},
  'storage.k8s.io-v1beta1-csistoragecapacities': {},
  'admissionregistration.k8s.io-v1-mutatingwebhookconfigurations': {},
  'admissionregistration.k8s.io-v1-validatingwebhookconfigurations': {},
  'flowcontrol.apiserver.k8s.io-v1beta1-prioritylevelconfigurations': {},
  'flowcontrol.apiserver.k8s.io-v1beta1-flowschemas': {},
  'flowcontrol.apiserver.k8s.io-v1beta2-prioritylevelconfigurations': {},
  'flowcontrol.apiserver.k8s.io-v1beta2-flowschemas': {},
  'apiextensions.k8s.io-v1-customresourcedefinitions': {},
};

type Json = Record<string, unknown>;

function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Keys and indexes of `spec.containers[0].volumeMounts`. */
function segments(path: string): string[] {
  return path.split('.').flatMap((part) => part.split(/\[(\d+)\]/).filter((s) => s !== ''));
}

/** Removes the value at `path` and returns it (undefined when absent). */
function take(root: unknown, path: string): unknown {
  const keys = segments(path);
  let node: unknown = root;
  for (const key of keys.slice(0, -1)) node = isJson(node) || Array.isArray(node) ? (node as Json)[key] : undefined;
  const last = keys[keys.length - 1]!;
  if (!isJson(node) && !Array.isArray(node)) return undefined;
  const value = (node as Json)[last];
  if (Array.isArray(node)) node[Number(last)] = undefined;
  else delete node[last];
  return value;
}

// The fixtures replace secrets with <redacted> (see the README).
const REDACTED_SECRET_KEYS = ['tls.crt', 'tls.key', 'token', 'ca.crt'];

function redacted(obj: Json): Json {
  // The token volume's random suffix is a placeholder in the fixtures.
  const copy = JSON.parse(JSON.stringify(obj).replace(/"kube-api-access-[a-z0-9]{5}"/g, '"kube-api-access-<suffix>"')) as Json;
  const data = copy['kind'] === 'Secret' && isJson(copy['data']) ? copy['data'] : undefined;
  for (const key of REDACTED_SECRET_KEYS) if (data && data[key] !== undefined) data[key] = '<redacted>';
  const spec = copy['kind'] === 'CertificateSigningRequest' && isJson(copy['spec']) ? copy['spec'] : undefined;
  if (spec && spec['request'] !== undefined) spec['request'] = '<redacted>';
  return copy;
}

/**
 * A fixture's request as sent in `encoding`: its JSON body, or the same object in Protobuf (as
 * client-go and controller-runtime send built-in kinds) — the reference stores the same either way.
 */
function requestIn(encoding: BodyEncoding, f: Fixture): { body: unknown; headers: Record<string, string> } {
  if (encoding === 'json') return { body: f.request.body, headers: f.request.headers };
  return { body: encodeProtobufObject(f.request.body as Json), headers: { ...f.request.headers, 'Content-Type': PROTOBUF_MEDIA_TYPE } };
}

/**
 * PUTs the stored object back in Protobuf with one more label: only that label (and the version)
 * changes. A controller may write the object in between (a CRD's status): the PUT then conflicts,
 * and is made again on the object as it is now.
 */
async function updateInProtobuf(base: string, f: Fixture, created: Json): Promise<void> {
  let stored = created;
  const path = `${f.request.path}/${String((created['metadata'] as Json)['name'])}`;
  let reply: Awaited<ReturnType<typeof call>>;
  for (let attempt = 0; ; attempt++) {
    const meta = stored['metadata'] as Json;
    const changed = structuredClone(stored);
    (changed['metadata'] as Json)['labels'] = { ...(meta['labels'] as Json | undefined), 'capstan.test/updated': 'in-protobuf' };
    reply = await call(base, 'PUT', path, { body: encodeProtobufObject(changed), headers: { ...f.request.headers, 'Content-Type': PROTOBUF_MEDIA_TYPE } });
    if (reply.status !== 409 || attempt === 5) break;
    const fresh = await call(base, 'GET', path, { headers: { Accept: 'application/json' } });
    assert.equal(fresh.status, 200, fresh.text);
    stored = fresh.json as Json;
  }
  const meta = stored['metadata'] as Json;
  assert.equal(reply.status, 200, reply.text);
  const updated = reply.json as Json;
  const labels = (updated['metadata'] as Json)['labels'] as Json;
  assert.equal(labels['capstan.test/updated'], 'in-protobuf');
  assert.notEqual((updated['metadata'] as Json)['resourceVersion'], meta['resourceVersion']);
  const rest = (o: Json) => ({ ...o, metadata: undefined });
  assert.deepEqual(rest(updated), rest(stored));
}

for (const encoding of ['json', 'protobuf'] as const) describe(`creates as the reference stores them (${encoding} bodies)`, () => {
  let server: RunningServer;
  before(async () => {
    // The reference's service range (see test/fixtures/reference/README.md).
    server = await memoryServer({ serviceClusterIpRange: '10.96.0.0/16' });
    for (const name of ['ref-create', 'ref-create-quota']) {
      assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
    }
  });
  after(() => server.close());

  for (const [name, pending] of Object.entries(FIXTURES)) {
    it(name, async () => {
      const f = fixture(`create/${name}`);
      const reply = await call(server.url, f.request.method, f.request.path, requestIn(encoding, f));
      assert.equal(reply.status, f.response.status, reply.text);
      // Deprecated versions warn (Node joins repeated headers with ", ").
      const warning = (f.response.headers as Record<string, unknown>)['warning'];
      assert.equal(reply.headers['warning'], Array.isArray(warning) ? warning.join(', ') : undefined);
      const ours = redacted(placeholders(reply.json) as Json);
      const theirs = structuredClone(f.response.body) as Json;
      for (const [path, shaped] of Object.entries(ALLOCATED[name] ?? {})) {
        const [a, b] = [take(ours, path), take(theirs, path)];
        assert.ok(shaped(a) && shaped(b), `${path}: ${String(a)} / ${String(b)}`);
      }
      for (const [path, by] of Object.entries(pending)) {
        const [a, b] = [take(ours, path), take(theirs, path)];
        assert.notDeepEqual(a, b, `${path} now matches (${by} is done): remove it from the pending list`);
      }
      assert.deepEqual(ours, theirs);
      if (encoding === 'protobuf') await updateInProtobuf(server.url, f, reply.json as Json);
    });
  }

  it('deprecated versions warn on reads and errors too', async () => {
    const expected = '299 - "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler"';
    const list = await call(server.url, 'GET', '/apis/autoscaling/v2beta2/namespaces/ref-create/horizontalpodautoscalers');
    assert.equal(list.status, 200);
    assert.equal(list.headers['warning'], expected);
    const missing = await call(server.url, 'GET', '/apis/autoscaling/v2beta2/namespaces/ref-create/horizontalpodautoscalers/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['warning'], expected);
    assert.equal((await call(server.url, 'GET', '/apis/autoscaling/v2/namespaces/ref-create/horizontalpodautoscalers')).headers['warning'], undefined);
  });
});
