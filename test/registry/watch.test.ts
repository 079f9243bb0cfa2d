// The registry's watch API, as the watch endpoint uses it: the initial ADDED events, the changes
// after a resourceVersion, selector transitions, 410 when the history is gone, bookmarks (timed by
// an injected clock), the deadline, and the end when the resource stops being served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { genericDefinition } from '../../src/registry/definitions.js';
import { firstBookmarkDelay, type Watch, type WatchRequest, type WatchTimers } from '../../src/registry/watch.js';
import type { JsonObject } from '../../src/json.js';
import { sleep, until } from '../helpers.js';
import { GROUP, nameAt, Widgets } from './widgets.js';

const LIMIT = { timeout: 10_000 };

/** Timers that run only when a test says so. */
class ManualTimers implements WatchTimers {
  private next = 1;
  private readonly pending = new Map<number, { callback: () => void; ms: number }>();

  setTimeout(callback: () => void, ms: number): number {
    const id = this.next++;
    this.pending.set(id, { callback, ms });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** The delays of the timers set and not yet run or cleared. */
  delays(): number[] {
    return [...this.pending.values()].map((t) => t.ms).sort((a, b) => a - b);
  }

  /** Runs the pending timer set with this delay. */
  run(ms: number): void {
    const found = [...this.pending].find(([, t]) => t.ms === ms);
    assert.ok(found, `no timer of ${ms} ms among ${this.delays().join(', ')}`);
    this.pending.delete(found[0]);
    found[1].callback();
  }
}

interface Opened {
  /** "ADDED name@rv", "BOOKMARK @rv", "ERROR 410 message". */
  events: string[];
  objects: JsonObject[];
  ended: () => boolean;
  watch: Watch;
}

async function open(w: Widgets, request: Partial<WatchRequest>, namespace?: string, info = w.info): Promise<Opened> {
  const events: string[] = [];
  const objects: JsonObject[] = [];
  let ends = 0;
  const watch = await w.registry.watch(info, namespace, { timeoutMs: 60_000, ...request }, {
    event: (e) => {
      if (e.type === 'BOOKMARK') events.push(`BOOKMARK @${e.revision}`);
      else if (e.type === 'ERROR') events.push(`ERROR ${e.status.code} ${e.status.message}`);
      else {
        const obj = JSON.parse(e.object.toString()) as JsonObject;
        objects.push(obj);
        events.push(`${e.type} ${nameAt(obj)}`);
      }
    },
    end: () => ends++,
  });
  return { events, objects, watch, ended: () => (assert.ok(ends <= 1, 'ended once'), ends === 1) };
}

const labelled = (app: string) => ({ app });
const selectsX = (obj: JsonObject) => ((obj['metadata'] as JsonObject)['labels'] as Record<string, string> | undefined)?.['app'] === 'x';

describe('the registry watch', () => {
  it('without a resourceVersion: the current objects (of the namespace, matching the filter) as ADDED, then the changes', LIMIT, async () => {
    const w = new Widgets();
    const a = await w.put('one', 'a', labelled('x'));
    await w.put('one', 'b', labelled('y'));
    await w.put('two', 'c', labelled('x'));
    const watch = await open(w, { filter: selectsX }, 'one');
    assert.deepEqual(watch.events, [`ADDED a@${a}`], 'sent before the watch is handed back');
    const d = await w.put('one', 'd', labelled('x'));
    await w.put('two', 'e', labelled('x'));
    const a2 = await w.put('one', 'a', labelled('x'), { size: 1 });
    await until(() => watch.events.join(', '), () => watch.events.length === 3);
    await sleep(10);
    assert.deepEqual(watch.events, [`ADDED a@${a}`, `ADDED d@${d}`, `MODIFIED a@${a2}`]);
    watch.watch.stop();
    await w.put('one', 'f', labelled('x'));
    await sleep(10);
    assert.equal(watch.events.length, 3, 'nothing after stop');
    assert.equal(watch.ended(), false, 'a watch stopped by its watcher is not ended by the registry');
  });

  it('from a resourceVersion: only the changes after it; selector transitions as DELETED (previous content, new version) and ADDED', LIMIT, async () => {
    const w = new Widgets();
    const start = await w.put('ns', 'seed', labelled('y'));
    const a1 = await w.put('ns', 'a', labelled('x'));
    await w.put('ns', 'b', labelled('y'));
    const watch = await open(w, { resourceVersion: start, filter: selectsX });
    const a2 = await w.put('ns', 'a', labelled('y'));
    const b2 = await w.put('ns', 'b', labelled('x'));
    const a3 = await w.put('ns', 'a', labelled('x'));
    await w.remove('ns', 'b');
    await until(() => watch.events.join(', '), () => watch.events.length === 5);
    assert.deepEqual(watch.events.slice(0, 4), [`ADDED a@${a1}`, `DELETED a@${a2}`, `ADDED b@${b2}`, `ADDED a@${a3}`]);
    assert.match(watch.events[4]!, /^DELETED b@\d+$/);
    assert.deepEqual((watch.objects[1]!['metadata'] as JsonObject)['labels'], labelled('x'), 'the object as it was when it still matched');
    watch.watch.stop();
  });

  it('from a resourceVersion whose history is gone: one ERROR event (410 Expired), then the end', LIMIT, async () => {
    const w = new Widgets();
    await w.put('ns', 'a');
    const rv = await w.put('ns', 'b');
    await w.storage.compact(rv);
    const watch = await open(w, { resourceVersion: 1 });
    assert.deepEqual(watch.events, [`ERROR 410 too old resource version: 1 (${rv})`]);
    assert.equal(watch.ended(), true);
  });

  it('bookmarks: about 2 s before the deadline (half the time when short), at most a minute on, then every minute; the deadline ends the watch', LIMIT, async () => {
    assert.equal(firstBookmarkDelay(30_000), 28_000);
    assert.equal(firstBookmarkDelay(3_000), 1_500);
    assert.equal(firstBookmarkDelay(45 * 60_000), 60_000);

    const w = new Widgets();
    const rv = await w.put('ns', 'a');
    const timers = new ManualTimers();
    const watch = await open(w, { resourceVersion: rv, bookmarks: true, timeoutMs: 90_000, timers });
    assert.deepEqual(timers.delays(), [60_000, 90_000]);
    const a2 = await w.put('ns', 'a', {}, { size: 2 });
    await until('the change', () => watch.events.length === 1);
    timers.run(60_000);
    assert.deepEqual(watch.events, [`MODIFIED a@${a2}`, `BOOKMARK @${a2}`]);
    assert.deepEqual(timers.delays(), [60_000, 90_000], 'the next one a minute on');
    await w.storage.create('/registry/example.com/gadgets/x', () => Buffer.from('{}'));
    timers.run(60_000);
    assert.equal(watch.events[2], `BOOKMARK @${w.storage.currentRevision()}`, 'the revision reached, whatever resource it was written for');
    timers.run(90_000);
    assert.equal(watch.ended(), true);
    assert.deepEqual(timers.delays(), [], 'no timer left behind');

    const plain = new ManualTimers();
    await open(w, { bookmarks: false, timeoutMs: 90_000, timers: plain });
    assert.deepEqual(plain.delays(), [90_000], 'no bookmark unless asked for');
  });

  it('a bookmark never vouches for a change not yet handed to the watch (changes are handed over in turns)', LIMIT, async () => {
    const w = new Widgets();
    const rv = await w.put('ns', 'a');
    const timers = new ManualTimers();
    const watch = await open(w, { resourceVersion: rv, bookmarks: true, timeoutMs: 90_000, timers });
    await w.storeNow('ns', 'b');
    const b = w.storage.currentRevision();
    // In the cache now (a get reads it), but a turn away from the watch.
    for (let i = 0; i < 50 && !(await w.registry.getObject(w.info, 'ns', 'b')); i++) await Promise.resolve();
    assert.deepEqual(watch.events, [], 'not handed over yet');
    timers.run(60_000);
    await until('the change', () => watch.events.length === 2);
    assert.deepEqual(watch.events, [`BOOKMARK @${rv}`, `ADDED b@${b}`]);
    timers.run(60_000);
    assert.equal(watch.events[2], `BOOKMARK @${b}`, 'once caught up, the revision reached');
    watch.watch.stop();
  });

  it('ends when the resource stops being served', LIMIT, async () => {
    const w = new Widgets();
    const watch = await open(w, {});
    w.definitions.remove(GROUP, 'widgets');
    await until('the end', () => watch.ended());
  });

  it('events come in the watched version', LIMIT, async () => {
    const w = new Widgets();
    w.definitions.add(genericDefinition({ group: GROUP, resource: 'widgets', kind: 'Widget', namespaced: true, versions: ['v1', 'v2'], storageVersion: 'v1' }));
    await w.put('ns', 'a');
    const watch = await open(w, {}, 'ns', w.definitions.lookup(GROUP, 'v2', 'widgets')!);
    assert.equal(watch.objects[0]!['apiVersion'], `${GROUP}/v2`);
    watch.watch.stop();
  });
});
