// Informers: the objects there now, then every change, with nothing missed or told twice across
// the line between the two (writes committed but not yet delivered included); subscriptions that
// carry on when the resource is removed and defined again; reads; the change number.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObjectVersion, type Informer, type SubscribeOptions } from '../../src/registry/informers.js';
import type { JsonObject } from '../../src/json.js';
import { parsedObject } from '../../src/encoding/derived.js';
import { sleep, until } from '../helpers.js';
import { GROUP, nameAt, widgetDefinition, Widgets } from './widgets.js';

const LIMIT = { timeout: 10_000 };

const at = (o: ObjectVersion): string => `${o.namespace}/${nameAt(o.object)}`;

/** A subscription's handler calls, as "added ns/name@rv", "updated ns/name@rv from ns/name@rv", "deleted ns/name@rv". */
function record(informer: Informer, options?: SubscribeOptions): { events: string[]; stop(): void } {
  const events: string[] = [];
  const subscription = informer.subscribe({
    added: (o, initial) => events.push(`added ${at(o)}${initial ? ' (initial)' : ''}`),
    updated: (o, old) => events.push(`updated ${at(o)} from ${at(old)}`),
    deleted: (o) => events.push(`deleted ${at(o)}`),
  }, options);
  return { events, stop: () => subscription.stop() };
}

/**
 * What a subscription is told, replayed into a state (key → bytes); `failures` lists every call that
 * does not follow from the calls before it: an add of a key it has, an update or a delete of one it
 * lacks, or whose old version is not the one it was told last.
 */
function follow(informer: Informer): { state: Map<string, Buffer>; failures: string[] } {
  const state = new Map<string, Buffer>();
  const failures: string[] = [];
  const known = (o: ObjectVersion, what: string) => {
    if (!state.get(o.key)?.equals(o.bytes)) failures.push(`${what} ${o.key}: told ${o.bytes.toString()}, knew ${state.get(o.key)?.toString()}`);
  };
  informer.subscribe({
    added: (o) => {
      if (state.has(o.key)) failures.push(`added ${o.key} twice`);
      state.set(o.key, o.bytes);
    },
    updated: (o, old) => {
      known(old, 'updated');
      state.set(o.key, o.bytes);
    },
    deleted: (o) => {
      known(o, 'deleted');
      state.delete(o.key);
    },
  });
  return { state, failures };
}

const names = (objects: JsonObject[]): string[] => objects.map(nameAt);

describe('informers', () => {
  it('replays the objects there now (before subscribe returns), then tells every change in order', LIMIT, async () => {
    const w = new Widgets();
    const a = await w.put('ns', 'a');
    const b = await w.put('ns', 'b');
    const informer = await w.registry.informer(w.info);
    const { events } = record(informer);
    assert.deepEqual(events, [`added ns/a@${a} (initial)`, `added ns/b@${b} (initial)`]);
    const c = await w.put('ns', 'c');
    const a2 = await w.put('ns', 'a', {}, { size: 2 });
    await w.remove('ns', 'b');
    await until(() => `${events.length} events`, () => events.length === 5);
    assert.equal(events[2], `added ns/c@${c}`);
    assert.equal(events[3], `updated ns/a@${a2} from ns/a@${a}`);
    assert.match(events[4]!, /^deleted ns\/b@\d+$/);
    const later = record(informer, { replay: false });
    const d = await w.put('other', 'd');
    await until('the change after a subscription without replay', () => later.events.length === 1);
    assert.deepEqual(later.events, [`added other/d@${d}`]);
  });

  it('a write committed but not yet delivered when a subscription begins is told once, after the replay', LIMIT, async () => {
    const w = new Widgets();
    await w.storeNow('ns', 'early');
    await sleep(5);
    const informer = await w.registry.informer(w.info);
    void w.storeNow('ns', 'late');
    const late = w.storage.currentRevision();
    const { events } = record(informer);
    assert.deepEqual(events, [`added ns/early@${late - 1} (initial)`], 'the replay is what the cache holds');
    await until('the late write', () => events.length === 2);
    await sleep(20);
    assert.deepEqual(events, [`added ns/early@${late - 1} (initial)`, `added ns/late@${late}`]);
  });

  it('subscriptions begun among writes in flight each end with the current objects, with no gap and no repeat', LIMIT, async () => {
    const w = new Widgets();
    const informer = await w.registry.informer(w.info);
    const followers: Array<ReturnType<typeof follow>> = [];
    const present = new Set<string>();
    for (let i = 0; i < 120; i++) {
      const name = `w${(i * 7) % 11}`;
      if (present.has(name) && i % 4 === 3) {
        void w.unstoreNow('ns', name);
        present.delete(name);
      } else {
        void w.storeNow('ns', name, { i });
        present.add(name);
      }
      if (i % 3 === 0) followers.push(follow(informer));
      // Now and then the deliveries catch up; mostly they lag the writes.
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
    }
    await until('every write delivered', () => informer.changeNumber() === w.storage.currentRevision());
    const current = new Map(informer.list().map((obj) => [nameAt(obj), obj]));
    assert.equal(current.size, present.size);
    for (const { state, failures } of followers) {
      assert.deepEqual(failures, []);
      assert.deepEqual([...state.values()].map((b) => nameAt(JSON.parse(b.toString()) as JsonObject)).sort(), [...current.keys()].sort());
    }
  });

  it('while its resource is not served it holds nothing and tells nothing; served again, each subscription hears what changed meanwhile', LIMIT, async () => {
    const w = new Widgets();
    const rv: Record<string, number> = {};
    const store = async (name: string, spec?: JsonObject) => {
      await w.storeNow('ns', name, spec);
      rv[name] = w.storage.currentRevision();
    };
    for (const name of ['a', 'b', 'keep']) await store(name);
    const informer = await w.registry.informer(w.info);
    const before = record(informer);
    const stopped = record(informer);
    assert.equal(before.events.length, 3);
    const first = { ...rv };

    w.definitions.remove(GROUP, 'widgets');
    assert.deepEqual(informer.list(), []);
    assert.equal(informer.get('ns', 'a'), undefined);
    stopped.stop();
    await store('a', { size: 2 });
    await w.unstoreNow('ns', 'b');
    await store('c');
    const during = record(informer);
    await sleep(20);
    assert.equal(before.events.length, 3, 'nothing is told while not served');
    assert.deepEqual(during.events, []);

    w.definitions.add(widgetDefinition());
    assert.equal(await w.registry.informer(w.info), informer, 'one informer per resource, whatever happens to its definition');
    assert.deepEqual(before.events.slice(3), [`updated ns/a@${rv['a']} from ns/a@${first['a']}`, `deleted ns/b@${first['b']}`, `added ns/c@${rv['c']}`]);
    assert.deepEqual(during.events, [`added ns/a@${rv['a']}`, `added ns/c@${rv['c']}`, `added ns/keep@${rv['keep']}`]);
    assert.deepEqual(names(informer.list('ns')), [`a@${rv['a']}`, `c@${rv['c']}`, `keep@${rv['keep']}`]);

    const d = await w.put('ns', 'd');
    await until('a change after the resource came back', () => before.events.length === 7 && during.events.length === 4);
    assert.equal(before.events[6], `added ns/d@${d}`);
    assert.equal(during.events[3], `added ns/d@${d}`);
    assert.equal(stopped.events.length, 3, 'a stopped subscription hears nothing more');
  });

  it('reads: get and has by namespace and name, list by namespace, decoded copies of their own', LIMIT, async () => {
    const w = new Widgets();
    const a = await w.put('one', 'a');
    const b = await w.put('two', 'b');
    const informer = await w.registry.informer(w.info);
    assert.equal(nameAt(informer.get('one', 'a')!), `a@${a}`);
    assert.equal(informer.get('two', 'a'), undefined);
    assert.equal(informer.has('two', 'b'), true);
    assert.equal(informer.has('one', 'b'), false);
    assert.deepEqual(names(informer.list()), [`a@${a}`, `b@${b}`]);
    assert.deepEqual(names(informer.list('two')), [`b@${b}`]);
    assert.deepEqual(informer.list('three'), []);
    informer.get('one', 'a')!['spec'] = 'changed';
    assert.deepEqual(informer.get('one', 'a')!['spec'], {});
  });

  it('the change number moves with every change of the resource (and only then), forward across its removal', LIMIT, async () => {
    const w = new Widgets();
    const informer = await w.registry.informer(w.info);
    const seen = [informer.changeNumber()];
    const moved = (what: string) => {
      const n = informer.changeNumber();
      assert.ok(n > seen[seen.length - 1]!, `${what}: ${n} after ${seen.join(', ')}`);
      seen.push(n);
    };
    await w.put('ns', 'a');
    moved('create');
    await w.put('ns', 'a', {}, { size: 1 });
    moved('update');
    await w.storage.create('/registry/example.com/gadgets/ns/x', () => Buffer.from('{}'));
    await sleep(5);
    assert.equal(informer.changeNumber(), seen[seen.length - 1], 'a write of another resource');
    await w.remove('ns', 'a');
    moved('delete');
    w.definitions.remove(GROUP, 'widgets');
    moved('no longer served');
    w.definitions.add(widgetDefinition());
    await informer.ready();
    moved('served again');
    await w.put('ns', 'b');
    moved('a create after');
  });

  it('frozen: one decoding shared by every subscription told of a change (the parse derived forms share), frozen; object: each its own to change', LIMIT, async () => {
    const w = new Widgets();
    const informer = await w.registry.informer(w.info);
    const seen: Array<{ frozen: JsonObject; object: JsonObject; oldFrozen?: JsonObject; shared: JsonObject }> = [];
    const keep = (o: ObjectVersion, old?: ObjectVersion) => seen.push({ frozen: o.frozen, object: o.object, ...(old ? { oldFrozen: old.frozen } : {}), shared: parsedObject(o.bytes) });
    for (let i = 0; i < 3; i++) informer.subscribe({ added: (o) => keep(o), updated: (o, old) => keep(o, old) }, { replay: false });
    const rv = await w.put('ns', 'a', { app: 'x' });
    await until('three subscriptions told of the create', () => seen.length === 3);
    assert.equal(seen[1]!.frozen, seen[0]!.frozen);
    assert.equal(seen[2]!.frozen, seen[0]!.frozen);
    assert.equal(seen[0]!.shared, seen[0]!.frozen);
    assert.equal(nameAt(seen[0]!.frozen), `a@${rv}`);
    assert.throws(() => { (seen[0]!.frozen['metadata'] as JsonObject)['labels'] = {}; }, TypeError);
    assert.throws(() => { ((seen[0]!.frozen['metadata'] as JsonObject)['labels'] as JsonObject)['app'] = 'y'; }, TypeError);
    // `object` stays a copy of each handler's own, free to change.
    assert.notEqual(seen[1]!.object, seen[0]!.object);
    (seen[0]!.object['metadata'] as JsonObject)['labels'] = {};
    assert.deepEqual((seen[1]!.object['metadata'] as JsonObject)['labels'], { app: 'x' });
    await w.put('ns', 'a', { app: 'z' });
    await until('three subscriptions told of the update', () => seen.length === 6);
    assert.equal(seen[4]!.frozen, seen[3]!.frozen);
    assert.deepEqual((seen[3]!.frozen['metadata'] as JsonObject)['labels'], { app: 'z' });
    // The old version is the create's bytes: decoded again only if it is no longer among the last few.
    assert.deepEqual((seen[3]!.oldFrozen!['metadata'] as JsonObject)['labels'], { app: 'x' });
    assert.equal(seen[4]!.oldFrozen, seen[3]!.oldFrozen);
  });

  it('handlers are given the namespace and name from the key (none for a cluster-scoped object); the object decoded on first use', LIMIT, () => {
    const bytes = Buffer.from('{"metadata":{"name":"x"}}');
    const clusterScoped = new ObjectVersion('/registry/things/x', bytes, '/registry/things/'.length);
    assert.equal(clusterScoped.namespace, undefined);
    assert.equal(clusterScoped.name, 'x');
    const namespaced = new ObjectVersion('/registry/example.com/widgets/ns/x', bytes, '/registry/example.com/widgets/'.length);
    assert.equal(namespaced.namespace, 'ns');
    assert.equal(namespaced.name, 'x');
    assert.equal(namespaced.object, namespaced.object);
    assert.deepEqual(namespaced.object, { metadata: { name: 'x' } });
  });
});
