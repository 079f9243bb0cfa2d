// Watches as the reference serves them: the recorded watch fixtures (test/fixtures/reference/watch)
// reproduced with the same actions at the same times, and the list-then-watch protocol a client
// relies on (start versions, resume, 410, selectors, bookmarks, timeouts, deprecated paths).
import assert from 'node:assert/strict';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, mustOk, sleep } from '../helpers.js';

/** The recorder's User-Agent, so that writes get its field manager name (`recorder`). */
const UA = { 'User-Agent': 'recorder/1.0 (record.mjs; node)' };
const MERGE = { ...UA, 'Content-Type': 'application/merge-patch+json' };
/** How the controller-manager's root-ca-cert-publisher introduces itself (manager `kube-controller-manager`). */
const CONTROLLER_UA = { 'User-Agent': 'kube-controller-manager/v1.25.0 (linux/amd64) kubernetes/a866cbe/system:serviceaccount:kube-system:root-ca-cert-publisher' };

interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience, as Reply.json
  object: any;
}

/** A watch response read as it arrives: newline-delimited JSON events. */
class WatchStream {
  status = 0;
  headers: IncomingHttpHeaders = {};
  text = '';
  readonly events: WatchEvent[] = [];
  readonly openedAt = Date.now();
  endedAt: number | undefined;
  endedBy: 'server' | 'client' | undefined;
  readonly ended: Promise<void>;
  private request!: ClientRequest;
  private pending = '';
  private waiters: Array<() => void> = [];
  private resolveEnded!: () => void;

  constructor() {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  static open(base: string, path: string): Promise<WatchStream> {
    const w = new WatchStream();
    return new Promise((resolve, reject) => {
      w.request = httpRequest(new URL(path, base), { method: 'GET', headers: { Accept: 'application/json' }, agent: false }, (res) => {
        w.status = res.statusCode ?? 0;
        w.headers = res.headers;
        res.on('data', (chunk: Buffer) => w.onData(chunk.toString('utf8')));
        const finish = () => {
          if (w.endedAt === undefined) {
            w.endedAt = Date.now();
            w.endedBy ??= 'server';
            w.resolveEnded();
            w.wake();
          }
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', () => undefined);
        resolve(w);
      });
      w.request.on('error', (err) => {
        if (w.status === 0) reject(err);
      });
      w.request.end();
    });
  }

  /** Milliseconds from opening to the end of the stream. */
  get duration(): number {
    return (this.endedAt ?? Date.now()) - this.openedAt;
  }

  close(): void {
    if (this.endedAt === undefined) this.endedBy = 'client';
    this.request.destroy();
  }

  /** Resolves once `n` events (of the given types, when given) arrived; fails after `timeoutMs`. */
  async waitFor(n: number, timeoutMs = 5000, types?: string[]): Promise<WatchEvent[]> {
    const matching = () => (types ? this.events.filter((e) => types.includes(e.type)) : this.events);
    const deadline = Date.now() + timeoutMs;
    while (matching().length < n) {
      if (this.endedAt !== undefined) assert.fail(`stream ended with ${matching().length} of ${n} events: ${this.text}`);
      if (Date.now() > deadline) assert.fail(`only ${matching().length} of ${n} events after ${timeoutMs} ms: ${this.text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return matching();
  }

  async waitForEnd(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`stream still open after ${timeoutMs} ms`)), timeoutMs)))]);
    clearTimeout(timer);
  }

  private onData(text: string): void {
    this.text += text;
    this.pending += text;
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).trim();
      this.pending = this.pending.slice(nl + 1);
      if (line) this.events.push(JSON.parse(line) as WatchEvent);
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

function cms(ns: string): string {
  return `/api/v1/namespaces/${ns}/configmaps`;
}

async function makeNamespace(base: string, name: string): Promise<void> {
  await mustOk(call(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, headers: UA }), 201);
}

async function create(base: string, ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<number> {
  const r = await mustOk(call(base, 'POST', cms(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data }, headers: UA }), 201);
  return Number(r.json.metadata.resourceVersion);
}

async function patch(base: string, ns: string, name: string, body: object): Promise<number> {
  const r = await mustOk(call(base, 'PATCH', `${cms(ns)}/${name}`, { body, headers: MERGE }));
  return Number(r.json.metadata.resourceVersion);
}

async function remove(base: string, ns: string, name: string): Promise<void> {
  await mustOk(call(base, 'DELETE', `${cms(ns)}/${name}`, { headers: UA }));
}

const summary = (events: WatchEvent[]): string[] => events.map((e) => `${e.type} ${e.object?.metadata?.name ?? ''}`.trim());
const rvOf = (e: WatchEvent): number => Number(e.object.metadata.resourceVersion);

// ---------------------------------------------------------------------------------------------
// The recorded watch fixtures
// ---------------------------------------------------------------------------------------------

const ROOT_CA = 'kube-root-ca.crt';

/** An event as the fixtures have it: placeholders, the CA redacted. */
function normalizeEvent(e: WatchEvent): WatchEvent {
  const object = placeholders(e.object) as { message?: string; metadata?: { name?: string }; data?: Record<string, string> };
  if (typeof object.message === 'string') object.message = object.message.replace(/(too old resource version: \d+ \()\d+\)/, '$1<rv>)');
  if (object.metadata?.name === ROOT_CA && object.data?.['ca.crt']) object.data['ca.crt'] = '<redacted>';
  return { type: e.type, object };
}

/** Compares as compare.mjs does: leading ADDED of an initial state as a multiset, bookmarks by presence. */
function assertEventsMatch(actual: WatchEvent[], expected: WatchEvent[], initialUnordered: boolean): void {
  const norm = (list: WatchEvent[]) => list.map(normalizeEvent);
  const exp = expected;
  const act = norm(actual);
  const expBookmarks = exp.filter((e) => e.type === 'BOOKMARK');
  const actBookmarks = act.filter((e) => e.type === 'BOOKMARK');
  assert.equal(actBookmarks.length > 0, expBookmarks.length > 0, `bookmarks: ${actBookmarks.length} vs ${expBookmarks.length} expected`);
  for (const b of actBookmarks) assert.deepEqual(b, expBookmarks[0]);
  const expRest = exp.filter((e) => e.type !== 'BOOKMARK');
  const actRest = act.filter((e) => e.type !== 'BOOKMARK');
  let k = 0;
  if (initialUnordered) while (k < expRest.length && expRest[k]!.type === 'ADDED') k++;
  const shape = (list: WatchEvent[]) => [...summary(list.slice(0, k)).sort(), ...summary(list.slice(k))];
  assert.deepEqual(shape(actRest), shape(expRest), 'event types and objects');
  // Key order does not matter to the comparison: a canonical text with sorted keys.
  const canonical = (v: unknown): unknown => (Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k2, x]) => [k2, canonical(x)])) : v);
  const key = (e: WatchEvent) => JSON.stringify(canonical(e));
  assert.deepEqual(actRest.slice(0, k).map(key).sort(), expRest.slice(0, k).map(key).sort(), 'the initial ADDED events (any order)');
  assert.deepEqual(actRest.slice(k), expRest.slice(k), 'the later events, in order');
}

describe('the reference watch fixtures, reproduced', { concurrency: true }, () => {
  /** A server with namespace ref-watch as the recorder made it: kube-root-ca.crt (the controller-manager's part), alpha and beta. */
  async function refWatchServer(historyWindowMs?: number): Promise<RunningServer> {
    const server = historyWindowMs ? await startServer({ bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '', historyWindowMs, insecure: true }) : await memoryServer();
    try {
      await makeNamespace(server.url, 'ref-watch');
      const root = (fixture('watch/configmaps-watch-no-resourceversion').response.body as WatchEvent[]).find((e) => e.object.metadata.name === ROOT_CA)!;
      await mustOk(call(server.url, 'POST', cms('ref-watch'), {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA, annotations: root.object.metadata.annotations }, data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n' } },
        headers: CONTROLLER_UA,
      }), 201);
      await create(server.url, 'ref-watch', 'alpha', { k: '1' });
      await create(server.url, 'ref-watch', 'beta', { k: '1' });
      return server;
    } catch (err) {
      // The callers close the server only once they have it: a failed setup must not leave it listening
      // (it would keep this file's process, and so the whole run, waiting for good).
      await server.close();
      throw err;
    }
  }

  async function record(server: RunningServer, path: string, actions?: () => Promise<void>, maxMs = 10_000): Promise<WatchStream> {
    const w = await WatchStream.open(server.url, path);
    if (actions) await actions();
    await w.waitForEnd(maxMs);
    return w;
  }

  function checkResponse(w: WatchStream, name: string, initialUnordered: boolean): void {
    const f = fixture(`watch/${name}`);
    assert.equal(w.status, f.response.status);
    assert.equal(w.headers['content-type'], f.response.headers['content-type']);
    assert.equal(w.endedBy, 'server');
    assertEventsMatch(w.events, f.response.body as WatchEvent[], initialUnordered);
  }

  const alphaBetaActions = (server: RunningServer, k: number) => async () => {
    await sleep(500);
    await patch(server.url, 'ref-watch', 'alpha', { data: { k: String(k) } });
    await sleep(200);
    await remove(server.url, 'ref-watch', 'beta');
  };

  it('configmaps-watch-no-resourceversion: ADDED for every object, then MODIFIED and DELETED; ends at timeoutSeconds', async () => {
    const server = await refWatchServer();
    try {
      const f = fixture('watch/configmaps-watch-no-resourceversion');
      const w = await record(server, f.request.path, alphaBetaActions(server, 2));
      checkResponse(w, 'configmaps-watch-no-resourceversion', true);
      assert.ok(w.duration >= 3500 && w.duration < 6000, `ended after ${w.duration} ms`);
    } finally {
      await server.close();
    }
  });

  it('configmaps-watch-bookmarks-timeout3: the same with a BOOKMARK before the deadline', async () => {
    const server = await refWatchServer();
    try {
      await patch(server.url, 'ref-watch', 'alpha', { data: { k: '2' } });
      const f = fixture('watch/configmaps-watch-bookmarks-timeout3');
      const w = await record(server, f.request.path, alphaBetaActions(server, 3));
      checkResponse(w, 'configmaps-watch-bookmarks-timeout3', true);
      assert.ok(w.duration >= 2500 && w.duration < 5000, `ended after ${w.duration} ms`);
    } finally {
      await server.close();
    }
  });

  it('configmaps-watch-from-list-resourceversion: only the changes after the list', async () => {
    const server = await refWatchServer();
    try {
      await patch(server.url, 'ref-watch', 'alpha', { data: { k: '3' } });
      await remove(server.url, 'ref-watch', 'beta');
      const listed = await mustOk(call(server.url, 'GET', cms('ref-watch')));
      await create(server.url, 'ref-watch', 'beta', { k: '1' });
      const f = fixture('watch/configmaps-watch-from-list-resourceversion');
      const path = f.request.path.replace('<rv>', listed.json.metadata.resourceVersion);
      const w = await record(server, path, async () => {
        await sleep(300);
        await remove(server.url, 'ref-watch', 'beta');
      });
      checkResponse(w, 'configmaps-watch-from-list-resourceversion', false);
    } finally {
      await server.close();
    }
  });

  it('configmaps-watch-resourceversion-1: 200, one ERROR event (410 Expired), closed at once', async () => {
    // Revision 1 must be out of the retained history, as in the long-running reference.
    const server = await refWatchServer(300);
    try {
      await sleep(800);
      await create(server.url, 'ref-watch', 'gamma', { k: '1' });
      const f = fixture('watch/configmaps-watch-resourceversion-1');
      const w = await record(server, f.request.path, undefined, 2000);
      checkResponse(w, 'configmaps-watch-resourceversion-1', false);
      assert.ok(w.duration < 1000, `ended after ${w.duration} ms`);
    } finally {
      await server.close();
    }
  });

  it('configmaps-watch-resourceversion-0: the current objects as ADDED', async () => {
    const server = await refWatchServer();
    try {
      await patch(server.url, 'ref-watch', 'alpha', { data: { k: '3' } });
      await remove(server.url, 'ref-watch', 'beta');
      const f = fixture('watch/configmaps-watch-resourceversion-0');
      const w = await record(server, f.request.path);
      checkResponse(w, 'configmaps-watch-resourceversion-0', true);
      assert.ok(w.duration >= 1500, `ended after ${w.duration} ms`);
    } finally {
      await server.close();
    }
  });

  it('configmap-watch-single-object-fieldselector: one object, as kubectl get -w watches it', async () => {
    const server = await refWatchServer();
    try {
      await patch(server.url, 'ref-watch', 'alpha', { data: { k: '3' } });
      const f = fixture('watch/configmap-watch-single-object-fieldselector');
      const w = await record(server, f.request.path, async () => {
        await sleep(300);
        await patch(server.url, 'ref-watch', 'alpha', { data: { k: '4' } });
        await patch(server.url, 'ref-watch', 'beta', { data: { k: 'other object' } });
      });
      checkResponse(w, 'configmap-watch-single-object-fieldselector', false);
    } finally {
      await server.close();
    }
  });

  it('watch-far-future-resourceversion: stays open with no events (not even for new writes) until timeoutSeconds', async () => {
    const server = await refWatchServer();
    try {
      const f = fixture('errors/watch-far-future-resourceversion');
      const w = await record(server, f.request.path, async () => {
        await sleep(300);
        await create(server.url, 'ref-watch', 'during', { k: '1' });
        await patch(server.url, 'ref-watch', 'alpha', { data: { k: 'x' } });
      });
      assert.equal(w.status, 200);
      assert.equal(w.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(w.events, f.response.body);
      assert.equal(w.endedBy, 'server');
      assert.ok(w.duration >= 4500, `ended after ${w.duration} ms`);
    } finally {
      await server.close();
    }
  });

  it('no BOOKMARK without allowWatchBookmarks=true; with it, bookmarks carry only kind, apiVersion and metadata.resourceVersion (and a null creationTimestamp)', async () => {
    const server = await refWatchServer();
    try {
      const ns = cms('ref-watch');
      const [without, withBookmarks] = await Promise.all([
        WatchStream.open(server.url, `${ns}?watch=1&timeoutSeconds=3`),
        WatchStream.open(server.url, `${ns}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3`),
      ]);
      await sleep(200);
      const rv = await patch(server.url, 'ref-watch', 'alpha', { data: { k: 'bm' } });
      await Promise.all([without.waitForEnd(6000), withBookmarks.waitForEnd(6000)]);
      assert.deepEqual(without.events.filter((e) => e.type === 'BOOKMARK'), []);
      assert.deepEqual(summary(without.events).slice(-1), ['MODIFIED alpha']);
      const bookmarks = withBookmarks.events.filter((e) => e.type === 'BOOKMARK');
      assert.ok(bookmarks.length >= 1, withBookmarks.text);
      for (const b of bookmarks) {
        assert.deepEqual(Object.keys(b.object).sort(), ['apiVersion', 'kind', 'metadata']);
        assert.equal(b.object.kind, 'ConfigMap');
        assert.equal(b.object.apiVersion, 'v1');
        assert.deepEqual(b.object.metadata, { resourceVersion: b.object.metadata.resourceVersion, creationTimestamp: null });
        assert.ok(Number(b.object.metadata.resourceVersion) >= rv, 'all changes up to the bookmark were sent');
      }
      const modified = withBookmarks.events.findIndex((e) => e.type === 'MODIFIED');
      const firstBookmark = withBookmarks.events.findIndex((e) => e.type === 'BOOKMARK');
      assert.ok(modified >= 0 && modified < firstBookmark, 'the change comes before the bookmark that covers it');
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// list-then-watch
// ---------------------------------------------------------------------------------------------

describe('watch semantics', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('a watch from a list\'s resourceVersion gets only the later changes, in order', async () => {
    const ns = 'from-list';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 'x', { v: '1' });
    await create(server.url, ns, 'y', { v: '1' });
    const listed = await mustOk(call(server.url, 'GET', cms(ns)));
    const rvX = await patch(server.url, ns, 'x', { data: { v: '2' } });
    const rvZ = await create(server.url, ns, 'z', { v: '1' });
    await remove(server.url, ns, 'y');
    const w = await WatchStream.open(server.url, `${cms(ns)}?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    try {
      const events = await w.waitFor(3);
      await sleep(100);
      assert.deepEqual(summary(w.events), ['MODIFIED x', 'ADDED z', 'DELETED y']);
      assert.equal(rvOf(events[0]!), rvX);
      assert.equal(events[0]!.object.data.v, '2');
      assert.equal(rvOf(events[1]!), rvZ);
      assert.ok(rvOf(events[2]!) > rvZ, 'a DELETED event carries the version of the delete');
      assert.equal(events[2]!.object.data.v, '1', 'and the last state of the object');
      const now = await mustOk(call(server.url, 'GET', cms(ns)));
      assert.equal(String(rvOf(events[2]!)), now.json.metadata.resourceVersion);
    } finally {
      w.close();
    }
  });

  it('resuming from the last seen resourceVersion after a disconnect loses no event and repeats none', async () => {
    const ns = 'resume';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 'r0', { v: '0' });
    const first = await WatchStream.open(server.url, `${cms(ns)}?watch=1`);
    await first.waitFor(1);
    await create(server.url, ns, 'r1', { v: '0' });
    await patch(server.url, ns, 'r0', { data: { v: '1' } });
    await first.waitFor(3);
    first.close();
    const seen = [...first.events];
    const last = seen[seen.length - 1]!.object.metadata.resourceVersion as string;
    // While nobody watches:
    await create(server.url, ns, 'r2', { v: '0' });
    await patch(server.url, ns, 'r1', { data: { v: '1' } });
    await remove(server.url, ns, 'r0');
    await create(server.url, ns, 'r3', { v: '0' });
    const second = await WatchStream.open(server.url, `${cms(ns)}?watch=1&resourceVersion=${last}`);
    try {
      await second.waitFor(4);
      await patch(server.url, ns, 'r3', { data: { v: '1' } });
      await second.waitFor(5);
      await sleep(100);
      const all = [...seen, ...second.events];
      assert.deepEqual(summary(all), ['ADDED r0', 'ADDED r1', 'MODIFIED r0', 'ADDED r2', 'MODIFIED r1', 'DELETED r0', 'ADDED r3', 'MODIFIED r3']);
      const rvs = all.map(rvOf);
      for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, `versions increase: ${rvs}`);
      // The state the events build is the state a list shows.
      const state = new Map<string, unknown>();
      for (const e of all) {
        if (e.type === 'DELETED') state.delete(e.object.metadata.name);
        else state.set(e.object.metadata.name, e.object.data);
      }
      const listed = await mustOk(call(server.url, 'GET', cms(ns)));
      assert.deepEqual(new Map(listed.json.items.map((i: { metadata: { name: string }; data: unknown }) => [i.metadata.name, i.data])), state);
    } finally {
      second.close();
    }
  });

  it('an object that stops matching the label selector arrives as DELETED (its previous content, the new version); one that starts matching as ADDED', async () => {
    const ns = 'sel-watch';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 's1', { v: '1' }, { app: 'x' });
    await create(server.url, ns, 's2', { v: '1' }, { app: 'y' });
    const w = await WatchStream.open(server.url, `${cms(ns)}?watch=1&labelSelector=app%3Dx`);
    try {
      await w.waitFor(1);
      const rvLeave = await patch(server.url, ns, 's1', { metadata: { labels: { app: 'y' } }, data: { v: '2' } });
      const rvJoin = await patch(server.url, ns, 's2', { metadata: { labels: { app: 'x' } } });
      await patch(server.url, ns, 's2', { data: { v: '2' } });
      await patch(server.url, ns, 's1', { data: { v: '3' } }); // not matching before or after: nothing
      await remove(server.url, ns, 's2');
      await remove(server.url, ns, 's1');
      await create(server.url, ns, 's3', { v: '1' }, { app: 'x' });
      await w.waitFor(6);
      await sleep(100);
      assert.deepEqual(summary(w.events), ['ADDED s1', 'DELETED s1', 'ADDED s2', 'MODIFIED s2', 'DELETED s2', 'ADDED s3']);
      const left = w.events[1]!;
      assert.equal(left.object.metadata.resourceVersion, String(rvLeave));
      assert.deepEqual(left.object.metadata.labels, { app: 'x' }, 'the DELETED event carries the object as it last matched');
      assert.deepEqual(left.object.data, { v: '1' });
      const joined = w.events[2]!;
      assert.equal(joined.object.metadata.resourceVersion, String(rvJoin));
      assert.deepEqual(joined.object.metadata.labels, { app: 'x' });
    } finally {
      w.close();
    }
  });

  it('fieldSelector=metadata.name=x watches that one object', async () => {
    const ns = 'one-object';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 'other', { v: '1' });
    const w = await WatchStream.open(server.url, `${cms(ns)}?watch=1&fieldSelector=metadata.name%3Dx`);
    try {
      await sleep(100);
      assert.deepEqual(w.events, [], 'x does not exist yet');
      await create(server.url, ns, 'x', { v: '1' });
      await patch(server.url, ns, 'other', { data: { v: '2' } });
      await patch(server.url, ns, 'x', { data: { v: '2' } });
      await create(server.url, ns, 'xx', { v: '1' });
      await remove(server.url, ns, 'x');
      await w.waitFor(3);
      await sleep(100);
      assert.deepEqual(summary(w.events), ['ADDED x', 'MODIFIED x', 'DELETED x']);
    } finally {
      w.close();
    }
  });

  it('timeoutSeconds ends the stream from the server side', async () => {
    const w = await WatchStream.open(server.url, `${cms('default')}?watch=1&timeoutSeconds=1`);
    await w.waitForEnd(5000);
    assert.equal(w.status, 200);
    assert.equal(w.endedBy, 'server');
    assert.ok(w.duration >= 900 && w.duration < 3000, `ended after ${w.duration} ms`);
  });

  it('resourceVersionMatch on a watch: 422', async () => {
    const reply = await call(server.url, 'GET', `${cms('default')}?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan`);
    assert.equal(reply.status, 422, reply.text);
    assert.deepEqual(reply.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
      reason: 'Invalid',
      details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden for watch', field: 'resourceVersionMatch' }] },
      code: 422,
    });
  });

  it('an invalid label selector on a watch: the list\'s 400, no stream', async () => {
    const f = fixture('errors/list-invalid-label-selector');
    const reply = await call(server.url, 'GET', `${cms('default')}?watch=1&labelSelector=app%20in%20(a`);
    assert.equal(reply.status, 400, reply.text);
    assert.deepEqual(reply.json, f.response.body);
  });

  it('the deprecated /api/v1/watch/namespaces/{ns}/configmaps path watches the collection', async () => {
    const ns = 'deprecated';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 'old', { v: '1' });
    const w = await WatchStream.open(server.url, `/api/v1/watch/namespaces/${ns}/configmaps`);
    try {
      assert.equal(w.status, 200);
      assert.equal(w.headers['content-type'], 'application/json');
      await w.waitFor(1);
      await patch(server.url, ns, 'old', { data: { v: '2' } });
      await create(server.url, ns, 'new', { v: '1' });
      await w.waitFor(3);
      assert.deepEqual(summary(w.events), ['ADDED old', 'MODIFIED old', 'ADDED new']);
      assert.equal(w.events[0]!.object.kind, 'ConfigMap');
    } finally {
      w.close();
    }
  });

  it('the deprecated /api/v1/watch/namespaces/{ns}/configmaps/{name} path watches one object', async () => {
    const ns = 'deprecated-one';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 'target', { v: '1' });
    await create(server.url, ns, 'bystander', { v: '1' });
    const w = await WatchStream.open(server.url, `/api/v1/watch/namespaces/${ns}/configmaps/target`);
    try {
      assert.equal(w.status, 200, w.text);
      await w.waitFor(1);
      await patch(server.url, ns, 'bystander', { data: { v: '2' } });
      await patch(server.url, ns, 'target', { data: { v: '2' } });
      await w.waitFor(2);
      await sleep(100);
      assert.deepEqual(summary(w.events), ['ADDED target', 'MODIFIED target']);
    } finally {
      w.close();
    }
  });

  it('watch is a boolean as the reference reads it: True (Python\'s), yes and an empty value watch; False and 0 list; a named object is read', async () => {
    const ns = 'spelled';
    await makeNamespace(server.url, ns);
    await create(server.url, ns, 'one', { v: '1' });
    for (const spelling of ['True', 'TRUE', 'yes', '']) {
      const w = await WatchStream.open(server.url, `${cms(ns)}?watch=${spelling}&timeoutSeconds=5`);
      try {
        assert.equal(w.status, 200, w.text);
        await w.waitFor(1);
        assert.deepEqual(summary(w.events), ['ADDED one'], `watch=${spelling}`);
      } finally {
        w.close();
      }
    }
    for (const spelling of ['False', 'FALSE', '0']) {
      const list = await mustOk(call(server.url, 'GET', `${cms(ns)}?watch=${spelling}`));
      assert.equal(list.json.kind, 'ConfigMapList', `watch=${spelling}`);
    }
    // As on the reference, ?watch on an object's own path reads it (the /watch/ path watches one).
    const named = await mustOk(call(server.url, 'GET', `${cms(ns)}/one?watch=true`));
    assert.equal(named.json.kind, 'ConfigMap');
    assert.equal(named.json.metadata.name, 'one');
  });

  it('a watch from a version written before anything read the resource is served (the watch cache starts with the server)', async () => {
    const fresh = await memoryServer();
    try {
      await makeNamespace(fresh.url, 'early');
      const rvA = await create(fresh.url, 'early', 'a', { v: '1' });
      const rvB = await patch(fresh.url, 'early', 'a', { data: { v: '2' } });
      const w = await WatchStream.open(fresh.url, `${cms('early')}?watch=1&resourceVersion=${rvA}`);
      try {
        const [e] = await w.waitFor(1);
        assert.equal(e!.type, 'MODIFIED', w.text);
        assert.equal(rvOf(e!), rvB);
      } finally {
        w.close();
      }
    } finally {
      await fresh.close();
    }
  });

  it('a watch across all namespaces sees every namespace\'s changes', async () => {
    await makeNamespace(server.url, 'all-a');
    await makeNamespace(server.url, 'all-b');
    const listed = await mustOk(call(server.url, 'GET', '/api/v1/configmaps'));
    const w = await WatchStream.open(server.url, `/api/v1/configmaps?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    try {
      await create(server.url, 'all-a', 'in-a', { v: '1' });
      await create(server.url, 'all-b', 'in-b', { v: '1' });
      await w.waitFor(2);
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`), ['ADDED all-a/in-a', 'ADDED all-b/in-b']);
    } finally {
      w.close();
    }
  });
});

describe('watch from a compacted version (history window 200 ms)', () => {
  let server: RunningServer;
  before(async () => {
    const options: ServerOptions & { historyWindowMs: number } = { bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '', historyWindowMs: 200, insecure: true };
    server = await startServer(options);
    await makeNamespace(server.url, 'compacted');
  });
  after(() => server.close());

  it('200, then one ERROR event with 410 Expired "too old resource version: N (M)", then the server closes', async () => {
    await mustOk(call(server.url, 'GET', cms('compacted'))); // the cache starts before the versions below
    const start = await create(server.url, 'compacted', 'a', { v: '1' });
    await patch(server.url, 'compacted', 'a', { data: { v: '2' } });
    await sleep(700);
    await patch(server.url, 'compacted', 'a', { data: { v: '3' } });
    const w = await WatchStream.open(server.url, `${cms('compacted')}?watch=1&resourceVersion=${start}`);
    await w.waitForEnd(2000);
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    assert.equal(w.events.length, 1, w.text);
    const e = w.events[0]!;
    assert.equal(e.type, 'ERROR');
    assert.match(e.object.message, new RegExp(`^too old resource version: ${start} \\(\\d+\\)$`));
    assert.ok(Number(/\((\d+)\)/.exec(e.object.message)![1]) > start);
    assert.deepEqual(normalizeEvent(e), {
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${start} (<rv>)`, reason: 'Expired', code: 410 },
    });
  });

  it('the client recovers as the SPEC says: list again and watch from the new version', async () => {
    const listed = await mustOk(call(server.url, 'GET', cms('compacted')));
    const w = await WatchStream.open(server.url, `${cms('compacted')}?watch=1&resourceVersion=${listed.json.metadata.resourceVersion}`);
    try {
      await patch(server.url, 'compacted', 'a', { data: { v: '4' } });
      const [e] = await w.waitFor(1);
      assert.equal(e!.type, 'MODIFIED');
      assert.equal(e!.object.data.v, '4');
    } finally {
      w.close();
    }
  });
});
