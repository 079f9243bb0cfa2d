// core/v1 Events and events.k8s.io/v1 Events are one stored object, as in the reference: written
// through either API, read, listed, watched, patched, applied, printed and deleted through both,
// with the reference's field mapping (involvedObject ⇄ regarding, message ⇄ note, source ⇄
// deprecatedSource, …), stored once under /registry/events/<namespace>/<name> in core/v1.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, until, type Reply } from '../helpers.js';
import { capstanForSuite, ok } from './harness.js';

const NS = 'ev';
const CORE = `/api/v1/namespaces/${NS}/events`;
const EVENTS = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

/** An old-style Event, as client-go's recorder writes it through core/v1. */
function coreEvent(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name },
    involvedObject: { kind: 'Pod', namespace: NS, name: 'web-0', uid: '0b6b1c4e-1d7e-4a55-9f3c-2f1f3c0c9d11', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
    reason: 'Pulled', message: 'Container image "nginx" already present', source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-01-02T03:04:05Z', lastTimestamp: '2024-01-02T03:09:05Z', count: 4, type: 'Normal',
  };
}

/** A new-style Event, as the events.k8s.io recorder writes it. */
function newEvent(name: string): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name },
    eventTime: '2024-01-02T03:04:05.123456Z', reportingController: 'example.com/scheduler', reportingInstance: 'scheduler-1',
    action: 'Binding', reason: 'Scheduled', regarding: { kind: 'Pod', namespace: NS, name: 'web-1', apiVersion: 'v1' },
    note: 'Successfully assigned ev/web-1 to node-1', type: 'Normal',
  };
}

const must = (reply: Reply, status: number): Reply => {
  assert.equal(reply.status, status, reply.text);
  return reply;
};

/** The fields of an Event other than its metadata. */
function body(obj: Record<string, unknown>): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = obj;
  return rest;
}

interface WatchEvent {
  type: string;
  object: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** A watch that collects its events until closed. */
function openWatch(base: string, path: string): { events: WatchEvent[]; close(): void; ready: Promise<void> } {
  const events: WatchEvent[] = [];
  let close = () => undefined as void;
  const ready = new Promise<void>((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { headers: { Accept: 'application/json' } }, (res) => {
      resolve();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
          events.push(JSON.parse(text.slice(0, nl)) as WatchEvent);
          text = text.slice(nl + 1);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', (err) => (events.length ? undefined : reject(err)));
    req.end();
    close = () => req.destroy();
  });
  return { events, close: () => close(), ready };
}

describe('core/v1 and events.k8s.io/v1 Events: one stored object', { timeout: 60_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    must(await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201);
  });
  after(() => server.close());

  it('an Event created through core/v1 reads through events.k8s.io/v1 with the mapped fields, stored once in core/v1', async () => {
    const created = must(await call(server.url, 'POST', CORE, { body: coreEvent('pulled') }), 201).json;
    const got = must(await call(server.url, 'GET', `${EVENTS}/pulled`), 200).json;
    assert.deepEqual(body(got), {
      kind: 'Event', apiVersion: 'events.k8s.io/v1',
      eventTime: null,
      reason: 'Pulled',
      regarding: coreEvent('x')['involvedObject'],
      note: 'Container image "nginx" already present',
      type: 'Normal',
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2024-01-02T03:04:05Z',
      deprecatedLastTimestamp: '2024-01-02T03:09:05Z',
      deprecatedCount: 4,
    });
    // The same object: uid, resourceVersion and managedFields (still in the version written).
    assert.deepEqual(got.metadata, created.metadata);
    assert.equal(got.metadata.managedFields[0].apiVersion, 'v1');
    const stored = await server.storage.get(`/registry/events/${NS}/pulled`);
    assert.ok(stored, 'stored under /registry/events');
    const storedObj = JSON.parse(stored.value.toString('utf8'));
    assert.equal(storedObj.apiVersion, 'v1');
    assert.equal((await server.storage.list('/registry/events.k8s.io/')).items.length, 0, 'nothing under a key of its own');
  });

  it('an Event created through events.k8s.io/v1 reads through core/v1 with the mapped fields, stored in core/v1', async () => {
    const created = must(await call(server.url, 'POST', EVENTS, { body: newEvent('scheduled') }), 201).json;
    assert.deepEqual(body(created), {
      kind: 'Event', apiVersion: 'events.k8s.io/v1',
      eventTime: '2024-01-02T03:04:05.123456Z', reportingController: 'example.com/scheduler', reportingInstance: 'scheduler-1',
      action: 'Binding', reason: 'Scheduled', regarding: { kind: 'Pod', namespace: NS, name: 'web-1', apiVersion: 'v1' },
      note: 'Successfully assigned ev/web-1 to node-1', type: 'Normal',
      deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null,
    });
    const got = must(await call(server.url, 'GET', `${CORE}/scheduled`), 200).json;
    assert.deepEqual(body(got), {
      kind: 'Event', apiVersion: 'v1',
      involvedObject: { kind: 'Pod', namespace: NS, name: 'web-1', apiVersion: 'v1' },
      reason: 'Scheduled', message: 'Successfully assigned ev/web-1 to node-1', source: {},
      firstTimestamp: null, lastTimestamp: null, type: 'Normal', eventTime: '2024-01-02T03:04:05.123456Z',
      action: 'Binding', reportingComponent: 'example.com/scheduler', reportingInstance: 'scheduler-1',
    });
    assert.equal(got.metadata.uid, created.metadata.uid);
    assert.equal(got.metadata.managedFields[0].apiVersion, 'events.k8s.io/v1');
    const stored = JSON.parse((await server.storage.get(`/registry/events/${NS}/scheduled`))!.value.toString('utf8'));
    assert.equal(stored.apiVersion, 'v1');
    assert.equal(stored.reportingComponent, 'example.com/scheduler');
  });

  it('a body without apiVersion and kind is read as the endpoint\'s version', async () => {
    const { apiVersion: _apiVersion, kind: _kind, ...bare } = newEvent('bare');
    must(await call(server.url, 'POST', EVENTS, { body: bare }), 201);
    const got = must(await call(server.url, 'GET', `${CORE}/bare`), 200).json;
    assert.deepEqual([got.message, got.involvedObject.name, got.reportingComponent], ['Successfully assigned ev/web-1 to node-1', 'web-1', 'example.com/scheduler']);
    const stored = JSON.parse((await server.storage.get(`/registry/events/${NS}/bare`))!.value.toString('utf8'));
    assert.equal(stored.note, undefined, 'stored in core/v1\'s shape');
    must(await call(server.url, 'DELETE', `${CORE}/bare`), 200);
  });

  it('lists through both APIs hold the same objects, each in its own version', async () => {
    const core = must(await call(server.url, 'GET', CORE), 200).json;
    const events = must(await call(server.url, 'GET', EVENTS), 200).json;
    assert.equal(core.kind, 'EventList');
    assert.equal(events.kind, 'EventList');
    assert.equal(events.apiVersion, 'events.k8s.io/v1');
    const names = (list: { items: Array<{ metadata: { name: string; uid: string } }> }) => list.items.map((i) => `${i.metadata.name}/${i.metadata.uid}`).sort();
    assert.deepEqual(names(events), names(core));
    assert.ok(names(core).length >= 2);
    assert.ok(events.items.every((i: { note?: string; message?: string }) => i.message === undefined && typeof i.note === 'string'));
    assert.ok(core.items.every((i: { note?: string; message?: string }) => i.note === undefined && typeof i.message === 'string'));
  });

  it('field selectors work through both APIs, on events written through either', async () => {
    const names = async (path: string) => must(await call(server.url, 'GET', path), 200).json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
    assert.deepEqual(await names(`${CORE}?fieldSelector=${encodeURIComponent('involvedObject.name=web-1')}`), ['scheduled']);
    assert.deepEqual(await names(`${EVENTS}?fieldSelector=${encodeURIComponent('regarding.name=web-0')}`), ['pulled']);
    assert.deepEqual(await names(`${EVENTS}?fieldSelector=${encodeURIComponent('reportingController=example.com/scheduler')}`), ['scheduled']);
    assert.deepEqual(await names(`${CORE}?fieldSelector=${encodeURIComponent('reportingComponent=example.com/scheduler')}`), ['scheduled']);
    assert.deepEqual(await names(`${CORE}?fieldSelector=${encodeURIComponent('source=kubelet,reason=Pulled')}`), ['pulled']);
    // events.k8s.io names its own fields; core/v1's are not known there.
    const refused = must(await call(server.url, 'GET', `${EVENTS}?fieldSelector=${encodeURIComponent('involvedObject.name=web-0')}`), 400).json;
    assert.equal(refused.message, 'field label not supported: involvedObject.name');
  });

  it('a watch through either API sees writes made through the other, in its own version', async () => {
    const viaEvents = openWatch(server.url, `${EVENTS}?watch=1&resourceVersion=${must(await call(server.url, 'GET', EVENTS), 200).json.metadata.resourceVersion}`);
    const viaCore = openWatch(server.url, `${CORE}?watch=1&resourceVersion=${must(await call(server.url, 'GET', CORE), 200).json.metadata.resourceVersion}`);
    try {
      await Promise.all([viaEvents.ready, viaCore.ready]);
      must(await call(server.url, 'POST', CORE, { body: coreEvent('watched-core') }), 201);
      must(await call(server.url, 'POST', EVENTS, { body: newEvent('watched-new') }), 201);
      must(await call(server.url, 'DELETE', `${EVENTS}/watched-core`), 200);
      const seen = (w: { events: WatchEvent[] }) => w.events.map((e) => `${e.type} ${String(e.object['metadata'].name)} ${String(e.object['apiVersion'])}`);
      await until(() => `events.k8s.io watch: ${seen(viaEvents).join('; ')}`, () => viaEvents.events.length >= 3);
      await until(() => `core watch: ${seen(viaCore).join('; ')}`, () => viaCore.events.length >= 3);
      assert.deepEqual(seen(viaEvents), ['ADDED watched-core events.k8s.io/v1', 'ADDED watched-new events.k8s.io/v1', 'DELETED watched-core events.k8s.io/v1']);
      assert.deepEqual(seen(viaCore), ['ADDED watched-core v1', 'ADDED watched-new v1', 'DELETED watched-core v1']);
      assert.equal(viaEvents.events[0]!.object['note'], 'Container image "nginx" already present');
      assert.equal(viaEvents.events[0]!.object['deprecatedCount'], 4);
      assert.equal(viaCore.events[1]!.object['message'], 'Successfully assigned ev/web-1 to node-1');
      assert.equal(viaCore.events[1]!.object['reportingComponent'], 'example.com/scheduler');
    } finally {
      viaEvents.close();
      viaCore.close();
    }
  });

  it('every patch type works through both APIs, on an event written through the other', async () => {
    must(await call(server.url, 'POST', CORE, { body: coreEvent('patched-core') }), 201);
    must(await call(server.url, 'POST', EVENTS, { body: newEvent('patched-new') }), 201);
    const patch = (path: string, type: string, patchBody: unknown) => call(server.url, 'PATCH', path, { body: patchBody, headers: { 'Content-Type': type } });
    // Through events.k8s.io, only series and metadata may change (the reference's update rules).
    let r = must(await patch(`${EVENTS}/patched-core`, 'application/merge-patch+json', { metadata: { labels: { via: 'merge' } } }), 200).json;
    assert.equal(r.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(r.metadata.labels, { via: 'merge' });
    r = must(await patch(`${EVENTS}/patched-new`, 'application/json-patch+json', [{ op: 'add', path: '/series', value: { count: 2, lastObservedTime: '2024-01-02T03:14:05.000000Z' } }]), 200).json;
    assert.deepEqual(r.series, { count: 2, lastObservedTime: '2024-01-02T03:14:05.000000Z' });
    r = must(await patch(`${EVENTS}/patched-new`, 'application/strategic-merge-patch+json', { series: { count: 3 } }), 200).json;
    assert.equal(r.series.count, 3);
    // Through core/v1 the legacy rules only: the message may change.
    r = must(await patch(`${CORE}/patched-new`, 'application/merge-patch+json', { message: 'rescheduled' }), 200).json;
    assert.equal(r.message, 'rescheduled');
    assert.deepEqual(r.series, { count: 3, lastObservedTime: '2024-01-02T03:14:05.000000Z' });
    r = must(await patch(`${CORE}/patched-core`, 'application/json-patch+json', [{ op: 'replace', path: '/count', value: 5 }]), 200).json;
    assert.equal(r.count, 5);
    r = must(await patch(`${CORE}/patched-core`, 'application/strategic-merge-patch+json', { lastTimestamp: '2024-01-02T03:19:05Z' }), 200).json;
    assert.equal(r.lastTimestamp, '2024-01-02T03:19:05Z');
    // Each read through the other API shows the result.
    const asNew = must(await call(server.url, 'GET', `${EVENTS}/patched-new`), 200).json;
    assert.equal(asNew.note, 'rescheduled');
    const asOld = must(await call(server.url, 'GET', `${EVENTS}/patched-core`), 200).json;
    assert.deepEqual([asOld.deprecatedCount, asOld.deprecatedLastTimestamp, asOld.metadata.labels], [5, '2024-01-02T03:19:05Z', { via: 'merge' }]);
  });

  it('server-side apply through either API keeps each manager\'s entry in the version it was written in', async () => {
    const apply = (path: string, manager: string, applied: unknown) => call(server.url, 'PATCH', `${path}?fieldManager=${manager}`, { body: applied, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    must(await apply(`${CORE}/applied`, 'old-recorder', coreEvent('applied')), 201);
    const r = must(await apply(`${EVENTS}/applied`, 'new-recorder', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'applied', labels: { team: 'a' } } }), 200).json;
    assert.equal(r.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(r.metadata.labels, { team: 'a' });
    const entries = r.metadata.managedFields.map((m: { manager: string; operation: string; apiVersion: string }) => `${m.manager} ${m.operation} ${m.apiVersion}`);
    assert.deepEqual(entries, ['new-recorder Apply events.k8s.io/v1', 'old-recorder Apply v1']);
    const core = must(await call(server.url, 'GET', `${CORE}/applied`), 200).json;
    assert.deepEqual(core.metadata.managedFields, r.metadata.managedFields);
    assert.equal(core.message, 'Container image "nginx" already present');
    // A new-style event applied through events.k8s.io, then re-applied through core/v1.
    must(await apply(`${EVENTS}/applied-new`, 'new-recorder', newEvent('applied-new')), 201);
    const again = must(await apply(`${CORE}/applied-new`, 'old-recorder', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'applied-new', annotations: { note: 'x' } } }), 200).json;
    assert.equal(again.reportingComponent, 'example.com/scheduler');
    assert.deepEqual(again.metadata.managedFields.map((m: { manager: string; apiVersion: string }) => `${m.manager} ${m.apiVersion}`), ['new-recorder events.k8s.io/v1', 'old-recorder v1']);
  });

  it('ownership is compared in each entry\'s own version: an apply through core/v1 conflicts with the owner of the note', async () => {
    const apply = (path: string, manager: string, applied: unknown, force = false) =>
      call(server.url, 'PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, { body: applied, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    must(await apply(`${EVENTS}/owned`, 'new-recorder', newEvent('owned')), 201);
    const change = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'owned' }, message: 'changed' };
    const conflict = must(await apply(`${CORE}/owned`, 'old-recorder', change), 409).json;
    assert.equal(conflict.message, 'Apply failed with 1 conflict: conflict with "new-recorder": .note');
    const forced = must(await apply(`${CORE}/owned`, 'old-recorder', change, true), 200).json;
    const fields = (r: { metadata: { managedFields: Array<{ manager: string; fieldsV1: Record<string, unknown> }> } }, manager: string) =>
      Object.keys(r.metadata.managedFields.find((m) => m.manager === manager)!.fieldsV1).sort();
    assert.deepEqual(fields(forced, 'new-recorder'), ['f:action', 'f:eventTime', 'f:reason', 'f:regarding', 'f:reportingController', 'f:reportingInstance', 'f:type']);
    assert.deepEqual(fields(forced, 'old-recorder'), ['f:message']);
    // An update through core/v1 takes the reason from the events.k8s.io owner, by its own name.
    const patched = must(await call(server.url, 'PATCH', `${CORE}/owned?fieldManager=patcher`, { body: { reason: 'Rescheduled' }, headers: { 'Content-Type': 'application/merge-patch+json' } }), 200).json;
    assert.deepEqual(fields(patched, 'new-recorder'), ['f:action', 'f:eventTime', 'f:regarding', 'f:reportingController', 'f:reportingInstance', 'f:type']);
    assert.deepEqual(fields(patched, 'patcher'), ['f:reason']);
  });

  it('an events.k8s.io Event that is not new-style is refused with the reference\'s 422, and nothing is stored', async () => {
    const before = server.storage.currentRevision();
    const bad = { ...newEvent('bad'), reportingController: undefined };
    const r = must(await call(server.url, 'POST', EVENTS, { body: bad }), 422).json;
    assert.equal(r.message, 'Event "bad" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, '
      + 'reportingController: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character '
      + '(e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')]');
    assert.deepEqual(r.details, {
      name: 'bad', kind: 'Event',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'reportingController' },
        { reason: 'FieldValueInvalid', message: 'Invalid value: "": name part must be non-empty', field: 'reportingController' },
        { reason: 'FieldValueInvalid', message: r.details.causes[2].message, field: 'reportingController' },
      ],
    });
    // Without eventTime: the old-style rules, then the new API's own.
    const old = { ...newEvent('bad'), eventTime: undefined, deprecatedCount: 2, deprecatedSource: { component: 'kubelet' } };
    const r2 = must(await call(server.url, 'POST', EVENTS, { body: old }), 422).json;
    assert.equal(r2.message, 'Event "bad" is invalid: [eventTime: Required value, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]');
    // The same event is fine through core/v1, whose legacy rules ask only that the namespaces agree.
    const r3 = must(await call(server.url, 'POST', CORE, { body: { ...coreEvent('bad'), involvedObject: { kind: 'Node', name: 'node-1', namespace: 'other' } } }), 422).json;
    assert.equal(r3.message, 'Event "bad" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace');
    must(await call(server.url, 'GET', `${CORE}/bad`), 404);
    assert.equal(server.storage.currentRevision(), before, 'nothing written');
  });

  it('an update through events.k8s.io/v1 may not change what the reference keeps immutable', async () => {
    must(await call(server.url, 'POST', EVENTS, { body: newEvent('immutable') }), 201);
    const current = must(await call(server.url, 'GET', `${EVENTS}/immutable`), 200).json;
    const rv = current.metadata.resourceVersion;
    const r = must(await call(server.url, 'PUT', `${EVENTS}/immutable`, { body: { ...current, note: 'other', regarding: { kind: 'Pod', namespace: NS, name: 'web-2' }, eventTime: '2024-01-02T03:04:06.000000Z' } }), 422).json;
    assert.equal(r.message, 'Event "immutable" is invalid: [involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"ev", Name:"web-2", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable, '
      + 'message: Invalid value: "other": field is immutable, eventTime: Invalid value: 2024-01-02 03:04:06 +0000 UTC: field is immutable]');
    assert.equal(must(await call(server.url, 'GET', `${CORE}/immutable`), 200).json.metadata.resourceVersion, rv, 'unchanged');
    // The same change through core/v1 is allowed (no further validation there, for compatibility).
    const viaCore = must(await call(server.url, 'GET', `${CORE}/immutable`), 200).json;
    must(await call(server.url, 'PUT', `${CORE}/immutable`, { body: { ...viaCore, message: 'other' } }), 200);
    assert.equal(must(await call(server.url, 'GET', `${EVENTS}/immutable`), 200).json.note, 'other');
  });

  it('Tables through both APIs print the same rows', async () => {
    const rows = async (path: string) => {
      const t = must(await call(server.url, 'GET', path, { headers: { Accept: TABLE } }), 200).json;
      return t.rows.map((row: { cells: unknown[] }) => row.cells.slice(1).join(' | ')).sort();
    };
    const core = await rows(CORE);
    assert.deepEqual(await rows(EVENTS), core);
    assert.ok(core.some((r: string) => r.startsWith('Normal | Pulled | pod/web-0 | spec.containers{app} | kubelet, node-1 | Container image "nginx" already present')));
    assert.ok(core.some((r: string) => r.startsWith('Normal | Scheduled | pod/web-1 |  | example.com/scheduler, scheduler-1 | Successfully assigned ev/web-1 to node-1')));
  });

  it('deletes and deletecollection through either API remove the one object', async () => {
    must(await call(server.url, 'POST', EVENTS, { body: newEvent('gone') }), 201);
    must(await call(server.url, 'DELETE', `${CORE}/gone`), 200);
    must(await call(server.url, 'GET', `${EVENTS}/gone`), 404);
    for (const name of ['a', 'b']) must(await call(server.url, 'POST', CORE, { body: { ...coreEvent(`sweep-${name}`), metadata: { name: `sweep-${name}`, labels: { sweep: 'yes' } } } }), 201);
    const deleted = must(await call(server.url, 'DELETE', `${EVENTS}?labelSelector=sweep%3Dyes`), 200).json;
    assert.equal(deleted.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(deleted.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['sweep-a', 'sweep-b']);
    assert.equal(must(await call(server.url, 'GET', `${CORE}?labelSelector=sweep%3Dyes`), 200).json.items.length, 0);
  });

  it('the garbage collector leaves events alone, as the reference ignores them (both groups)', async () => {
    const owner = must(await call(server.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'owner' } } }), 201).json;
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
    must(await call(server.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'dependent', ownerReferences } } }), 201);
    must(await call(server.url, 'POST', EVENTS, { body: { ...newEvent('owned-event'), metadata: { name: 'owned-event', ownerReferences } } }), 201);
    must(await call(server.url, 'POST', CORE, { body: { ...coreEvent('owned-core-event'), metadata: { name: 'owned-core-event', ownerReferences } } }), 201);
    must(await call(server.url, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/owner`), 200);
    await until('the dependent ConfigMap is collected', async () => (await call(server.url, 'GET', `/api/v1/namespaces/${NS}/configmaps/dependent`)).status === 404, 10_000, 50);
    must(await call(server.url, 'GET', `${CORE}/owned-event`), 200);
    must(await call(server.url, 'GET', `${EVENTS}/owned-core-event`), 200);
  });

  it('quota counts each event once, whichever API wrote it (count/events.events.k8s.io; core events are not charged)', async () => {
    must(await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ev-quota' } } }), 201);
    must(await call(server.url, 'POST', '/api/v1/namespaces/ev-quota/events', { body: { ...coreEvent('one'), involvedObject: { kind: 'Pod', namespace: 'ev-quota', name: 'p' } } }), 201);
    must(await call(server.url, 'POST', '/apis/events.k8s.io/v1/namespaces/ev-quota/events', { body: { ...newEvent('two'), regarding: { kind: 'Pod', namespace: 'ev-quota', name: 'p' } } }), 201);
    must(await call(server.url, 'POST', '/api/v1/namespaces/ev-quota/resourcequotas', { body: { metadata: { name: 'q' }, spec: { hard: { 'count/events.events.k8s.io': '5', 'count/events': '5' } } } }), 201);
    const used = await until('the quota\'s usage', async () => {
      const q = must(await call(server.url, 'GET', '/api/v1/namespaces/ev-quota/resourcequotas/q'), 200).json;
      return q.status?.used ?? false;
    });
    assert.deepEqual(used, { 'count/events.events.k8s.io': '2' });
  });

  it('a namespace\'s deletion removes its events once, whichever API wrote them', async () => {
    must(await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ev-doomed' } } }), 201);
    must(await call(server.url, 'POST', '/api/v1/namespaces/ev-doomed/events', { body: { ...coreEvent('one'), involvedObject: { kind: 'Pod', namespace: 'ev-doomed', name: 'p' } } }), 201);
    must(await call(server.url, 'POST', '/apis/events.k8s.io/v1/namespaces/ev-doomed/events', { body: { ...newEvent('two'), regarding: { kind: 'Pod', namespace: 'ev-doomed', name: 'p' } } }), 201);
    must(await call(server.url, 'DELETE', '/api/v1/namespaces/ev-doomed'), 200);
    await until('the namespace is gone', async () => (await call(server.url, 'GET', '/api/v1/namespaces/ev-doomed')).status === 404, 20_000, 100);
    assert.equal((await server.storage.list('/registry/events/ev-doomed/')).items.length, 0);
  });
});

describe('kubectl get events through both APIs', { timeout: 60_000 }, () => {
  const capstan = capstanForSuite();

  it('kubectl get events and get events.v1.events.k8s.io list the events written through either API', async () => {
    const kubeconfig = capstan.current.kubeconfig;
    await ok(kubeconfig, ['create', 'namespace', NS]);
    await ok(kubeconfig, ['create', '-f', '-'], JSON.stringify(coreEvent('pulled')).replace('"metadata":{', `"metadata":{"namespace":"${NS}",`));
    await ok(kubeconfig, ['create', '-f', '-'], JSON.stringify(newEvent('scheduled')).replace('"metadata":{', `"metadata":{"namespace":"${NS}",`));
    const core = await ok(kubeconfig, ['get', 'events', '-n', NS, '--sort-by=metadata.name']);
    const grouped = await ok(kubeconfig, ['get', 'events.v1.events.k8s.io', '-n', NS, '--sort-by=metadata.name']);
    // The first column is the age ("LAST SEEN" in the header).
    const lines = (out: string) => out.trim().split('\n').map((l) => l.replace(/\s+/g, ' ').replace(/^(LAST SEEN|\S+) /, ''));
    assert.deepEqual(lines(core), [
      'TYPE REASON OBJECT MESSAGE',
      'Normal Pulled pod/web-0 Container image "nginx" already present',
      'Normal Scheduled pod/web-1 Successfully assigned ev/web-1 to node-1',
    ]);
    assert.deepEqual(lines(grouped), lines(core));
    const asNew = JSON.parse(await ok(kubeconfig, ['get', 'events.v1.events.k8s.io', '-n', NS, 'pulled', '-o', 'json']));
    assert.equal(asNew.apiVersion, 'events.k8s.io/v1');
    assert.equal(asNew.note, 'Container image "nginx" already present');
    const asOld = JSON.parse(await ok(kubeconfig, ['get', 'events', '-n', NS, 'scheduled', '-o', 'json']));
    assert.equal(asOld.apiVersion, 'v1');
    assert.equal(asOld.message, 'Successfully assigned ev/web-1 to node-1');
    const selected = await ok(kubeconfig, ['get', 'events', '-n', NS, '--field-selector', 'involvedObject.name=web-1', '-o', 'name']);
    assert.equal(selected.trim(), 'event/scheduled');
  });
});
