// The etcd key table (both ways, every built-in), the value codec (Protobuf envelope or JSON in,
// resourceVersion out) and the encryption configuration (providers, prefixes, refusals).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeProtobufObject, PROTOBUF_MAGIC } from '../../src/encoding/protobuf.js';
import { canEncodeProtobuf } from '../../src/encoding/protobuf-encode.js';
import { builtinDefinitions } from '../../src/registry/builtin/index.js';
import { parseEncryptionConfig } from '../../src/server/encryption-config.js';
import { EtcdKeyLayout } from '../../src/server/etcd-layout.js';
import { decodeStored, EtcdValues } from '../../src/server/etcd-values.js';
import { secretboxOpen, secretboxSeal } from '../../src/server/secretbox.js';
import { k8sTestdataDir, referenceDir } from '../helpers.js';

const LIMIT = { timeout: 10_000 };
const layout = EtcdKeyLayout.reference();

describe('the reference key layout in etcd', () => {
  it('names built-ins as kube-apiserver 1.25 does, and maps every key back', LIMIT, () => {
    const cases: [string, string][] = [
      ['/apps/deployments/ns/x', '/deployments/ns/x'],
      ['/services/ns/x', '/services/specs/ns/x'],
      ['/endpoints/ns/x', '/services/endpoints/ns/x'],
      ['/nodes/n1', '/minions/n1'],
      ['/replicationcontrollers/ns/rc', '/controllers/ns/rc'],
      ['/networking.k8s.io/ingresses/ns/i', '/ingress/ns/i'],
      ['/batch/cronjobs/ns/c', '/cronjobs/ns/c'],
      ['/autoscaling/horizontalpodautoscalers/ns/h', '/horizontalpodautoscalers/ns/h'],
      ['/configmaps/ns/c', '/configmaps/ns/c'],
      ['/apiextensions.k8s.io/customresourcedefinitions/a.b.c', '/apiextensions.k8s.io/customresourcedefinitions/a.b.c'],
      ['/apiregistration.k8s.io/apiservices/v1.apps', '/apiregistration.k8s.io/apiservices/v1.apps'],
      ['/example.com/widgets/ns/w', '/example.com/widgets/ns/w'],
      ['/ranges/serviceips', '/ranges/serviceips'],
      // A collection's prefix maps as its keys do.
      ['/services/', '/services/specs/'],
      ['/apps/deployments/ns/', '/deployments/ns/'],
    ];
    for (const [own, theirs] of cases) {
      assert.equal(layout.toEtcd(own), theirs, own);
      assert.equal(layout.fromEtcd(theirs), own, theirs);
    }
    // Core Events are at /events; events.k8s.io's keep their own key until they share core's in the registry.
    assert.equal(layout.fromEtcd('/events/ns/e'), '/events/ns/e');
    assert.equal(layout.toEtcd('/events.k8s.io/events/ns/e'), '/events.k8s.io/events/ns/e');
  });

  it('gives no two built-in resources one etcd prefix', LIMIT, () => {
    const seen = new Map<string, string>();
    for (const d of builtinDefinitions(() => true)) {
      const own = d.group ? `/${d.group}/${d.resource}/` : `/${d.resource}/`;
      const theirs = layout.toEtcd(`${own}ns/x`);
      assert.equal(seen.get(theirs), undefined, `${own} and ${seen.get(theirs)} both at ${theirs}`);
      seen.set(theirs, own);
      assert.equal(layout.fromEtcd(theirs), `${own}ns/x`);
    }
  });
});

describe('values in etcd', () => {
  const values = (encryption?: string): EtcdValues =>
    new EtcdValues({ prefix: '/registry', keys: layout, groups: new Set(['apps']), encryption: encryption ? parseEncryptionConfig(encryption) : undefined });
  const cm = Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', namespace: 'ns', resourceVersion: '0', uid: 'u' }, data: { a: '1' } }));

  it('keeps built-in kinds in the Protobuf envelope without resourceVersion, custom resources as JSON', LIMIT, () => {
    const v = values();
    const stored = v.toEtcd(cm, '/registry/configmaps/ns/c');
    assert.ok(stored.subarray(0, 4).equals(PROTOBUF_MAGIC));
    const decoded = decodeProtobufObject(stored).object as { metadata: Record<string, unknown> };
    assert.equal(decoded.metadata['resourceVersion'], undefined);
    const read = JSON.parse(v.fromEtcd(stored, 42, '/registry/configmaps/ns/c').toString()) as { metadata: Record<string, unknown>; data: unknown };
    assert.equal(read.metadata['resourceVersion'], '42');
    assert.deepEqual(read.data, { a: '1' });
    const widget = Buffer.from(JSON.stringify({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w', resourceVersion: '0' }, spec: { n: 1 } }));
    const kept = v.toEtcd(widget, '/registry/example.com/widgets/w');
    assert.deepEqual(JSON.parse(kept.toString()), { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w' }, spec: { n: 1 } });
    // --storage-media-type application/json: built-ins as JSON too.
    const json = new EtcdValues({ prefix: '/registry', keys: layout, groups: new Set(['apps']), encoding: 'json' });
    assert.deepEqual(JSON.parse(json.toEtcd(cm, '/registry/configmaps/ns/c').toString()).metadata, { name: 'c', namespace: 'ns', uid: 'u' });
    // JSON of a built-in kind (an older capstan's) reads too.
    const old = JSON.parse(v.fromEtcd(cm, 7, '/registry/configmaps/ns/c').toString()) as { metadata: Record<string, unknown> };
    assert.equal(old.metadata['resourceVersion'], '7');
  });

  it('reads back what Go writes and the Protobuf decoding drops: zero times as null, zero scalars without omitempty', LIMIT, () => {
    const v = values();
    const ss = {
      kind: 'StatefulSet', apiVersion: 'apps/v1', metadata: { name: 's', namespace: 'ns', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { replicas: 0, serviceName: 'x', selector: { matchLabels: { a: 'b' } }, template: { metadata: { creationTimestamp: null, labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: {} }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data', creationTimestamp: null }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: {} }] },
      status: { replicas: 0, availableReplicas: 0 },
    };
    const key = '/registry/statefulsets/ns/s';
    const back = JSON.parse(v.fromEtcd(v.toEtcd(Buffer.from(JSON.stringify(ss)), key), 9, key).toString()) as typeof ss;
    assert.equal(back.spec.template.metadata.creationTimestamp, null);
    assert.equal(back.spec.volumeClaimTemplates[0]!.metadata.creationTimestamp, null);
    assert.deepEqual(back.status, { replicas: 0, availableReplicas: 0 });
    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: 'ns', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
    const podBack = JSON.parse(v.fromEtcd(v.toEtcd(Buffer.from(JSON.stringify(pod)), '/registry/pods/ns/p'), 9, '/registry/pods/ns/p').toString()) as typeof pod;
    assert.deepEqual(podBack.status.conditions[0], { type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', lastProbeTime: null });
  });

  it('reads back every created kind of the reference as the reference answered it, byte for byte (key order, nulls, present pointer zeros)', LIMIT, () => {
    const v = values();
    const dir = join(referenceDir, 'create');
    // Placeholders the recorder put in for values of the run: a real time; `<node-port>` and a
    // redacted Secret or CSR are no value of their field, so those objects are left out.
    const unusable = /"<(node-port|redacted)>"/;
    let checked = 0;
    for (const file of readdirSync(dir).sort()) {
      const text = readFileSync(join(dir, file), 'utf8')
        .replaceAll('"eventTime": "<time>"', '"eventTime": "2024-01-02T03:04:05.000000Z"') // a MicroTime
        .replaceAll('"<time>"', '"2024-01-02T03:04:05Z"');
      const body = (JSON.parse(text) as { response: { body?: unknown } }).response.body;
      if (typeof body !== 'object' || body === null || unusable.test(JSON.stringify(body))) continue;
      const obj = body as { apiVersion: string; kind: string; metadata: Record<string, unknown> };
      if (!canEncodeProtobuf(obj.apiVersion, obj.kind) || !obj.metadata['uid']) continue; // reviews: never stored
      const key = `/registry/checked/${file}`;
      const back = v.fromEtcd(v.toEtcd(Buffer.from(JSON.stringify(obj)), key), 5, key).toString();
      obj.metadata['resourceVersion'] = '5';
      assert.equal(back, JSON.stringify(obj), file);
      checked++;
    }
    assert.ok(checked >= 55, `${checked} objects checked`);
  });

  it('writes the JSON of a stored Protobuf object in the Go struct\'s key order (upstream testdata)', LIMIT, () => {
    const order = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(order) : typeof value === 'object' && value !== null ? Object.keys(value).map((k) => [k, order((value as Record<string, unknown>)[k])]) : null;
    let checked = 0;
    for (const file of readdirSync(k8sTestdataDir).filter((f) => f.endsWith('.pb')).sort()) {
      const json = JSON.parse(readFileSync(join(k8sTestdataDir, file.replace(/\.pb$/, '.json')), 'utf8')) as Record<string, unknown>;
      if (!json['kind']) continue; // no type to read it as (a bare meta/v1 type)
      const read = decodeStored(readFileSync(join(k8sTestdataDir, file)));
      // The fuzzed objects set every field, so the keys are the same; their order must be too.
      assert.deepEqual(order(read), order(json), file);
      checked++;
    }
    assert.ok(checked >= 100, `${checked} kinds checked`);
  });

  it('has a Protobuf message for the storage version of every built-in kind', LIMIT, () => {
    const without = builtinDefinitions(() => true)
      .map((d) => ({ apiVersion: d.group ? `${d.group}/${d.storageVersion}` : d.storageVersion, kind: d.kind }))
      .filter(({ apiVersion, kind }) => !canEncodeProtobuf(apiVersion, kind));
    assert.deepEqual(without, []);
  });

  it('encrypts the resources the configuration names with its first provider and reads with any', LIMIT, () => {
    const key = Buffer.alloc(32, 9).toString('base64');
    const other = Buffer.alloc(16, 3).toString('base64');
    const config = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [configmaps, deployments.apps]
    providers:
      - aesgcm: {keys: [{name: k1, secret: "${key}"}]}
      - aescbc: {keys: [{name: k2, secret: "${other}"}]}
      - identity: {}
`;
    const v = values(config);
    const stored = v.toEtcd(cm, '/registry/configmaps/ns/c');
    assert.ok(stored.toString('latin1').startsWith('k8s:enc:aesgcm:v1:k1:'));
    assert.equal(JSON.parse(v.fromEtcd(stored, 3, '/registry/configmaps/ns/c').toString()).data.a, '1');
    // aesgcm binds the value to its key: moved elsewhere it does not read.
    assert.throws(() => v.fromEtcd(stored, 3, '/registry/configmaps/ns/other'), /^Error: cipher: message authentication failed$/);
    // Plain values (written before encryption was turned on) read through identity.
    assert.equal(JSON.parse(v.fromEtcd(cm, 3, '/registry/configmaps/ns/c').toString()).data.a, '1');
    // Resources not named are not encrypted.
    assert.ok(v.toEtcd(cm, '/registry/secrets/ns/c').subarray(0, 4).equals(PROTOBUF_MAGIC));
    // A key the configuration does not have.
    assert.throws(() => v.fromEtcd(Buffer.from('k8s:enc:aescbc:v1:gone:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'), 3, '/registry/configmaps/ns/c'), /no matching key was found for the provided AES transformer/);
    const onlyAes = values(config.replace('      - identity: {}\n', ''));
    assert.throws(() => onlyAes.fromEtcd(Buffer.from('k8s:enc:kms:v1:x:y'), 3, '/registry/configmaps/ns/c'), /^Error: no matching prefix found$/);
  });

  it('seals as NaCl\'s secretbox, and keeps secretbox-encrypted values', LIMIT, () => {
    // NaCl's output for key 1…, nonce 2…, message 3… (64 bytes), as golang.org/x/crypto's test has it.
    const box = secretboxSeal(Buffer.alloc(64, 3), Buffer.alloc(24, 2), Buffer.alloc(32, 1));
    assert.equal(box.toString('hex'), '8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198df6ab5368439792a23c87db70acb6156dc5ef957ac04f6276cf6093b84be77ff0849cc33e34b7254d5a8f65ad');
    assert.deepEqual(secretboxOpen(box, Buffer.alloc(24, 2), Buffer.alloc(32, 1)), Buffer.alloc(64, 3));
    const tampered = Buffer.from(box);
    tampered[20]! ^= 1;
    assert.equal(secretboxOpen(tampered, Buffer.alloc(24, 2), Buffer.alloc(32, 1)), undefined);
    const config = (secret: string): string => `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers: [{secretbox: {keys: [{name: sb, secret: "${secret}"}]}}]
`;
    const v = values(config(Buffer.alloc(32, 5).toString('base64')));
    const stored = v.toEtcd(cm, '/registry/secrets/ns/c');
    assert.ok(stored.toString('latin1').startsWith('k8s:enc:secretbox:v1:sb:'));
    assert.equal(JSON.parse(v.fromEtcd(stored, 3, '/registry/secrets/ns/c').toString()).data.a, '1');
    const wrong = values(config(Buffer.alloc(32, 6).toString('base64')));
    assert.throws(() => wrong.fromEtcd(stored, 3, '/registry/secrets/ns/c'), /^Error: output array was not large enough for encryption$/);
  });

  it('refuses bad configurations with the reference\'s field errors', LIMIT, () => {
    const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';
    assert.throws(() => parseEncryptionConfig('apiVersion: v1\nkind: Config\n'), /got unexpected config type/);
    assert.throws(() => parseEncryptionConfig(`${head}resources: []\n`), /resources: Required value/);
    assert.throws(() => parseEncryptionConfig(`${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: a, secret: "not base64!"}]}}]}]\n`), /keys\[0\]\.secret: Invalid value: "REDACTED": secrets must be base64 encoded/);
    assert.throws(() => parseEncryptionConfig(`${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: a, secret: "${Buffer.alloc(32).toString('base64')}"}]}, identity: {}}]}]\n`), /more than one provider specified in a single element/);
    assert.throws(() => parseEncryptionConfig(`${head}resources: [{resources: [secrets], providers: [{aesgcm: {keys: []}}]}]\n`), /aesgcm\.keys: Required value/);
    assert.throws(() => parseEncryptionConfig(`${head}resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: a, secret: "${Buffer.alloc(16).toString('base64')}"}]}}]}]\n`), /secret is not of the expected length, got 16, expected one of \[32\]/);
    assert.throws(() => parseEncryptionConfig(`${head}resources: [{resources: [secrets], providers: [{kms: {name: k}}]}]\n`), /kms: Unsupported value/);
  });
});
