// CustomResourceDefinitions over HTTP on an in-process server: a CRD is validated, gets its status
// (names accepted, established, storedVersions), its resources are served (status and scale
// subresources, generation, Table, JSON and YAML only, lists whose items keep their apiVersion and kind, no strategic merge patch), and deleting it
// deletes them and ends their watches.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { RunningServer } from '../../src/server/server.js';
import { call, firstWatchEvent, fixture, memoryServer, placeholders, until } from '../helpers.js';

async function mustOkCall(server: RunningServer, method: string, path: string, body: unknown, status: number, headers?: Record<string, string>): Promise<void> {
  const r = await call(server.url, method, path, { body, headers });
  assert.equal(r.status, status, r.text);
}

/** A request whose answer is kept as bytes (Protobuf). */
function rawCall(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const GROUP = 'stable.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = `/apis/${GROUP}/v1/namespaces/default/crontabs`;

function cronTabs(overrides: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${GROUP}` },
    spec: {
      group: GROUP, scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } } } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }, { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 }],
      }],
      ...overrides,
    },
  };
}

type Crd = { status: { conditions: Array<{ type: string; status: string; reason: string; message: string }>; acceptedNames: Record<string, unknown>; storedVersions: string[] } };

async function established(server: RunningServer, name: string): Promise<Crd> {
  return until(`${name} established`, async () => {
    const r = await call(server.url, 'GET', `${CRDS}/${name}`);
    const crd = r.json as Crd;
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? crd : undefined;
  }, 5_000);
}

describe('CustomResourceDefinitions over HTTP', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(async () => {
    await server.close();
  });

  it('refuses invalid CRDs with the reference causes and stores nothing', { timeout: 10_000 }, async () => {
    const bad = cronTabs({ group: 'nodot', versions: [{ name: 'V1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } }] });
    const r = await call(server.url, 'POST', CRDS, { body: bad });
    assert.equal(r.status, 422, r.text);
    const causes = (r.json.details.causes as Array<{ field: string; message: string }>).map((c) => `${c.field}: ${c.message}`);
    assert.ok(causes.includes('metadata.name: Invalid value: "crontabs.stable.example.com": must be spec.names.plural+"."+spec.group'), causes.join('\n'));
    assert.ok(causes.includes('spec.group: Invalid value: "nodot": should be a domain with at least one dot'), causes.join('\n'));
    assert.ok(causes.some((c) => c.startsWith('spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case')), causes.join('\n'));
    assert.ok(causes.some((c) => c.startsWith('spec.versions: Invalid value: ') && c.endsWith('must have exactly one version marked as storage version')), causes.join('\n'));
    assert.ok(causes.includes('status.storedVersions: Invalid value: []string{}: must have at least one stored version') || causes.some((c) => c.startsWith('status.storedVersions')), causes.join('\n'));
    assert.equal(r.json.message.startsWith('CustomResourceDefinition.apiextensions.k8s.io "crontabs.stable.example.com" is invalid: ['), true, r.json.message);
    assert.equal((await call(server.url, 'GET', `${CRDS}/crontabs.stable.example.com`)).status, 404);

    const webhook = cronTabs({ conversion: { strategy: 'Webhook' } });
    const w = await call(server.url, 'POST', CRDS, { body: webhook });
    assert.equal(w.status, 422, w.text);
    assert.deepEqual((w.json.details.causes as Array<{ field: string }>).map((c) => c.field), ['spec.conversion.webhookClientConfig', 'spec.conversion.conversionReviewVersions']);

    const protectedGroup = cronTabs({ group: 'things.k8s.io' });
    (protectedGroup.metadata as { name: string }).name = 'crontabs.things.k8s.io';
    const p = await call(server.url, 'POST', CRDS, { body: protectedGroup });
    assert.equal(p.status, 422, p.text);
    assert.equal(p.json.details.causes[0].field, 'metadata.annotations[api-approved.kubernetes.io]');
  });

  it('is established with its names, and its resources are served', { timeout: 20_000 }, async () => {
    const created = await call(server.url, 'POST', CRDS, { body: cronTabs() });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.status.storedVersions, ['v1']);
    const crd = await established(server, `crontabs.${GROUP}`);
    const byType = Object.fromEntries(crd.status.conditions.map((c) => [c.type, c]));
    assert.deepEqual([byType['NamesAccepted']?.status, byType['NamesAccepted']?.reason, byType['NamesAccepted']?.message], ['True', 'NoConflicts', 'no conflicts found']);
    assert.deepEqual([byType['Established']?.reason, byType['Established']?.message], ['InitialNamesAccepted', 'the initial names have been accepted']);
    assert.deepEqual(crd.status.acceptedNames, { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] });
    // The status writer owns each condition, not the list ("." there): Go's stored status had
    // `conditions: null`, so the reference adds its items one by one.
    const managed = (crd as unknown as { metadata: { managedFields: Array<{ manager: string; subresource?: string; fieldsV1: { 'f:status': Record<string, Record<string, unknown>> } }> } }).metadata.managedFields;
    const statusWriter = managed.find((m) => m.subresource === 'status')!;
    assert.equal(statusWriter.manager, 'kube-apiserver');
    assert.deepEqual(Object.keys(statusWriter.fieldsV1['f:status']['f:conditions']!).sort(), ['k:{"type":"Established"}', 'k:{"type":"NamesAccepted"}']);

    const discovery = (await call(server.url, 'GET', `/apis/${GROUP}/v1`)).json as { resources: Array<{ name: string; verbs: string[]; shortNames?: string[]; categories?: string[]; singularName: string }> };
    assert.deepEqual(discovery.resources.map((r) => r.name).sort(), ['crontabs', 'crontabs/scale', 'crontabs/status']);
    const main = discovery.resources.find((r) => r.name === 'crontabs')!;
    assert.deepEqual([main.shortNames, main.categories, main.singularName], [['ct'], ['all'], 'crontab']);

    // A create ignores status; a main write ignores status; a status write changes only status.
    const cr = await call(server.url, 'POST', BASE, { body: { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'c1' }, spec: { cronSpec: '* * * * */5', replicas: 1 }, status: { replicas: 9 } } });
    assert.equal(cr.status, 201, cr.text);
    assert.equal(cr.json.status, undefined);
    assert.equal(cr.json.metadata.generation, 1);
    const statusWrite = await call(server.url, 'PATCH', `${BASE}/c1/status`, { body: { status: { replicas: 2, selector: 'app=c' }, spec: { replicas: 7 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(statusWrite.status, 200, statusWrite.text);
    assert.deepEqual([statusWrite.json.status.replicas, statusWrite.json.spec.replicas, statusWrite.json.metadata.generation], [2, 1, 1]);
    const mainWrite = await call(server.url, 'PATCH', `${BASE}/c1`, { body: { status: { replicas: 5 }, spec: { replicas: 3 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.deepEqual([mainWrite.json.status.replicas, mainWrite.json.spec.replicas, mainWrite.json.metadata.generation], [2, 3, 2]);

    // Scale reads and writes the declared paths.
    const scale = await call(server.url, 'GET', `${BASE}/c1/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.deepEqual([scale.json.kind, scale.json.spec, scale.json.status], ['Scale', { replicas: 3 }, { replicas: 2, selector: 'app=c' }]);
    const scaled = await call(server.url, 'PATCH', `${BASE}/c1/scale`, { body: { spec: { replicas: 4 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal((await call(server.url, 'GET', `${BASE}/c1`)).json.spec.replicas, 4);

    // The Table has the declared columns after Name.
    const table = await call(server.url, 'GET', BASE, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual((table.json.columnDefinitions as Array<{ name: string; priority: number }>).map((c) => [c.name, c.priority]), [['Name', 0], ['Spec', 0], ['Replicas', 1]]);
    assert.deepEqual(table.json.rows[0].cells, ['c1', '* * * * */5', 4]);

    // JSON and YAML only; no strategic merge patch.
    const proto = await rawCall(server.url, 'GET', `${BASE}/c1`, { Accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(proto.status, 406);
    // As the reference: refused in its other wording, the Status in Protobuf, byte for byte.
    const notAcceptable = fixture('protobuf/get-custom-resource-accept-protobuf-only').response;
    assert.equal(proto.type, notAcceptable.headers['content-type']);
    assert.equal(proto.body.toString('base64'), (notAcceptable.body as { data: string }).data);
    // Offered JSON too, JSON it is.
    assert.equal((await call(server.url, 'GET', `${BASE}/c1`, { headers: { Accept: 'application/vnd.kubernetes.protobuf,application/json' } })).json.kind, 'CronTab');
    // A Protobuf body: 415 naming what a custom resource reads (the reference crashes on it).
    const posted = fixture('protobuf/create-custom-resource-protobuf-body').request.body as { data: string };
    const protoBody = await rawCall(server.url, 'POST', BASE, { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' }, Buffer.from(posted.data, 'base64'));
    assert.equal(protoBody.status, 415);
    assert.equal(JSON.parse(protoBody.body.toString()).message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
    const yaml = await call(server.url, 'GET', `${BASE}/c1`, { headers: { Accept: 'application/yaml' } });
    assert.match(yaml.text, /kind: CronTab/);
    const smp = await call(server.url, 'PATCH', `${BASE}/c1`, { body: { spec: { replicas: 1 } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 415);
    assert.equal(smp.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    assert.equal(smp.json.details, undefined, 'the reference\'s Status has no details');

    // Quota counts it by count/<plural>.<group>.
    const quota = await call(server.url, 'POST', '/api/v1/namespaces/default/resourcequotas', { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { [`count/crontabs.${GROUP}`]: '1' } } } });
    assert.equal(quota.status, 201, quota.text);
    const refused = await until('quota enforced', async () => {
      const r = await call(server.url, 'POST', BASE, { body: { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { generateName: 'q-' }, spec: { replicas: 1 } } });
      if (r.status === 201) await call(server.url, 'DELETE', `${BASE}/${r.json.metadata.name}`);
      return r.status === 403 ? r : undefined;
    });
    assert.match(refused.json.message, /exceeded quota: q/);
    await call(server.url, 'DELETE', '/api/v1/namespaces/default/resourcequotas/q');
  });

  it('lists custom resources with each item\'s own apiVersion and kind, in JSON and YAML, and watches them so', { timeout: 10_000 }, async () => {
    const names = ['typed-a', 'typed-b'];
    for (const name of names) {
      const r = await call(server.url, 'POST', BASE, { body: { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name }, spec: { cronSpec: '* * * * *', replicas: 1 } } });
      assert.equal(r.status, 201, r.text);
    }
    const selector = 'fieldSelector=metadata.name%3Dtyped-a';
    type Item = { apiVersion?: string; kind?: string; metadata: { name: string } };
    const mine = (items: Item[]) => items.filter((i) => names.includes(i.metadata.name));
    const typeMeta = (items: Item[]) => items.map((i) => [i.apiVersion, i.kind]);
    const expected = names.map(() => [`${GROUP}/v1`, 'CronTab']);

    const json = await call(server.url, 'GET', BASE);
    assert.equal(json.status, 200, json.text);
    assert.deepEqual([json.json.apiVersion, json.json.kind], [`${GROUP}/v1`, 'CronTabList']);
    assert.deepEqual(typeMeta(mine(json.json.items)), expected);
    // A selected list is written the same way.
    const selected = await call(server.url, 'GET', `${BASE}?${selector}`);
    assert.deepEqual(typeMeta(selected.json.items), [[`${GROUP}/v1`, 'CronTab']]);

    const yaml = await call(server.url, 'GET', BASE, { headers: { Accept: 'application/yaml' } });
    assert.equal(yaml.status, 200, yaml.text);
    const fromYaml = parseYaml(yaml.text) as { apiVersion: string; kind: string; items: Item[] };
    assert.deepEqual([fromYaml.apiVersion, fromYaml.kind], [`${GROUP}/v1`, 'CronTabList']);
    assert.deepEqual(typeMeta(mine(fromYaml.items)), expected);

    // A watch event's object carries them too.
    const event = await firstWatchEvent<{ type: string; object: { apiVersion?: string; kind?: string } }>(server.url, `${BASE}?watch=true&${selector}`);
    assert.deepEqual([event.type, event.object.apiVersion, event.object.kind], ['ADDED', `${GROUP}/v1`, 'CronTab']);

    for (const name of names) assert.equal((await call(server.url, 'DELETE', `${BASE}/${name}`)).status, 200);
  });

  it('owns fields under x-kubernetes-preserve-unknown-fields one by one ("deduced"), as the reference', { timeout: 10_000 }, async () => {
    // The recorder's CRD: a root that preserves unknown fields and declares none.
    await mustOkCall(server, 'POST', CRDS, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.ref.example.com' }, spec: { group: 'ref.example.com', scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } }, 201);
    await established(server, 'things.ref.example.com');
    await mustOkCall(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'ref-protobuf' } }, 201);
    const things = '/apis/ref.example.com/v1/namespaces/ref-protobuf/things';
    const f = fixture('protobuf/get-custom-resource-accept-protobuf-or-json');
    await mustOkCall(server, 'POST', things, { apiVersion: 'ref.example.com/v1', kind: 'Thing', metadata: { name: 't1' }, spec: { a: 1 } }, 201, { 'User-Agent': 'recorder/1.0 (record.mjs; node)' });
    const got = await call(server.url, 'GET', `${things}/t1`, { headers: f.request.headers as Record<string, string> });
    assert.equal(got.headers['content-type'], f.response.headers['content-type']);
    assert.deepEqual(placeholders(got.json), f.response.body);
    // Two appliers of different unknown fields share the object (owned whole, the second conflicted).
    const apply = (manager: string, spec: Record<string, unknown>) => call(server.url, 'PATCH', `${things}/t2?fieldManager=${manager}`, {
      body: JSON.stringify({ apiVersion: 'ref.example.com/v1', kind: 'Thing', metadata: { name: 't2' }, spec }), headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    assert.equal((await apply('one', { a: 1, nested: { x: 1 } })).status, 201);
    const second = await apply('two', { b: 2, nested: { y: 2 } });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec, { a: 1, nested: { x: 1, y: 2 }, b: 2 });
    const owned = Object.fromEntries((second.json.metadata.managedFields as Array<{ manager: string; fieldsV1: unknown }>).map((m) => [m.manager, m.fieldsV1]));
    assert.deepEqual(owned['two'], { 'f:spec': { 'f:b': {}, 'f:nested': { 'f:y': {} } } });
    // A list under it is owned whole: changing another's list conflicts.
    assert.equal((await apply('one', { a: 1, nested: { x: 1 }, items: [1, 2] })).status, 200);
    assert.equal((await apply('two', { b: 2, nested: { y: 2 }, items: [3] })).status, 409);
  });

  it('a second CRD with a clashing short name is refused its names', { timeout: 10_000 }, async () => {
    const other = cronTabs({ names: { plural: 'crontimers', singular: 'crontimer', kind: 'CronTimer', shortNames: ['ct'] } });
    (other.metadata as { name: string }).name = `crontimers.${GROUP}`;
    assert.equal((await call(server.url, 'POST', CRDS, { body: other })).status, 201);
    const crd = await until('names refused', async () => {
      const c = (await call(server.url, 'GET', `${CRDS}/crontimers.${GROUP}`)).json as Crd;
      return c.status?.conditions?.some((x) => x.type === 'NamesAccepted') ? c : undefined;
    });
    const names = crd.status.conditions.find((c) => c.type === 'NamesAccepted')!;
    assert.deepEqual([names.status, names.reason, names.message], ['False', 'ShortNamesConflict', '"ct" is already in use']);
    const est = crd.status.conditions.find((c) => c.type === 'Established')!;
    assert.deepEqual([est.status, est.reason], ['False', 'NotAccepted']);
    assert.equal((await call(server.url, 'DELETE', `${CRDS}/crontimers.${GROUP}`)).status, 200);
  });

  it('deleting the CRD ends its watches and deletes its resources', { timeout: 20_000 }, async () => {
    const ended = new Promise<number>((resolve, reject) => {
      const req = request(new URL(`${BASE}?watch=true`, server.url), (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    const del = await call(server.url, 'DELETE', `${CRDS}/crontabs.${GROUP}`);
    assert.equal(del.status, 200, del.text);
    assert.ok(del.json.metadata.deletionTimestamp);
    assert.deepEqual(del.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    assert.equal(await ended, 200);
    await until('the CRD is gone', async () => (await call(server.url, 'GET', `${CRDS}/crontabs.${GROUP}`)).status === 404);
    assert.equal((await call(server.url, 'GET', BASE)).status, 404);
    // Defined again, it has no resources left.
    assert.equal((await call(server.url, 'POST', CRDS, { body: cronTabs() })).status, 201);
    await established(server, `crontabs.${GROUP}`);
    await until('served again', async () => (await call(server.url, 'GET', BASE)).status === 200);
    assert.deepEqual((await call(server.url, 'GET', BASE)).json.items, []);
  });

  it('a resource held by a finalizer keeps its CRD terminating, refusing creates, until the finalizer goes', { timeout: 20_000 }, async () => {
    const name = `crontabs.${GROUP}`;
    const held = { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: { cronSpec: '* * * * *' } };
    assert.equal((await call(server.url, 'POST', BASE, { body: held })).status, 201);
    assert.equal((await call(server.url, 'POST', BASE, { body: { ...held, metadata: { name: 'free' } } })).status, 201);
    assert.equal((await call(server.url, 'DELETE', `${CRDS}/${name}`)).status, 200);
    const terminating = await until('terminating, the free one gone', async () => {
      const crd = (await call(server.url, 'GET', `${CRDS}/${name}`)).json as Crd;
      const names = ((await call(server.url, 'GET', BASE)).json.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name);
      const condition = crd.status.conditions.find((c) => c.type === 'Terminating');
      return condition?.status === 'True' && names.join() === 'held' ? condition : undefined;
    });
    assert.deepEqual({ reason: terminating.reason, message: terminating.message }, { reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    // It stays while the instance does.
    await new Promise((r) => setTimeout(r, 1_200));
    assert.equal((await call(server.url, 'GET', `${CRDS}/${name}`)).status, 200);
    const create = await call(server.url, 'POST', BASE, { body: { ...held, metadata: { name: 'late' } } });
    assert.equal(create.status, 405);
    assert.deepEqual(
      { reason: create.json.reason, message: create.json.message, details: create.json.details },
      { reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating', details: { group: GROUP, kind: 'crontabs' } },
    );
    const verbs = ((await call(server.url, 'GET', `/apis/${GROUP}/v1`)).json.resources as Array<{ name: string; verbs: string[] }>).find((r) => r.name === 'crontabs')!.verbs;
    assert.ok(verbs.includes('create') && verbs.includes('update'), 'discovery still lists every verb');
    // The finalizer's owner can still write it: taking the finalizer off lets both go.
    const patched = await call(server.url, 'PATCH', `${BASE}/held`, { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    await until('the CRD is gone', async () => (await call(server.url, 'GET', `${CRDS}/${name}`)).status === 404, 5_000);
  });
});
