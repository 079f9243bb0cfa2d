// Lists and gets as the reference serves them: every cell of the SPEC's resourceVersion tables,
// chunking (limit/continue), continue tokens, far-future versions, selectors and lists across all
// namespaces, driven over HTTP. Expected bodies come from test/fixtures/reference/errors where the
// reference was recorded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, mustOk, sleep } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}
interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Obj[];
}

function cms(ns: string): string {
  return `/api/v1/namespaces/${ns}/configmaps`;
}

async function makeNamespace(base: string, name: string): Promise<void> {
  await mustOk(call(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201);
}

async function makeConfigMap(base: string, ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<number> {
  const r = await mustOk(call(base, 'POST', cms(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data } }), 201);
  return Number(r.json.metadata.resourceVersion);
}

async function patchConfigMap(base: string, ns: string, name: string, patch: object): Promise<number> {
  const r = await mustOk(call(base, 'PATCH', `${cms(ns)}/${name}`, { body: patch, headers: MERGE }));
  return Number(r.json.metadata.resourceVersion);
}

async function deleteConfigMap(base: string, ns: string, name: string): Promise<void> {
  await mustOk(call(base, 'DELETE', `${cms(ns)}/${name}`));
}

async function list(base: string, path: string): Promise<ListBody> {
  const r = await mustOk(call(base, 'GET', path));
  return r.json as ListBody;
}

/**
 * Follows continue tokens from a first page as client-go's pager does: later requests keep limit and
 * the selectors, drop resourceVersion and resourceVersionMatch, and carry the continue token.
 */
async function allPages(base: string, path: string, first?: ListBody): Promise<ListBody[]> {
  const pages = [first ?? (await list(base, path))];
  const [bare, query] = path.split('?') as [string, string | undefined];
  const params = new URLSearchParams(query ?? '');
  for (const p of ['resourceVersion', 'resourceVersionMatch', 'continue']) params.delete(p);
  for (let i = 0; i < 1000 && pages[pages.length - 1]!.metadata.continue; i++) {
    params.set('continue', pages[pages.length - 1]!.metadata.continue!);
    pages.push(await list(base, `${bare}?${params}`));
  }
  return pages;
}

const names = (items: Obj[]): string[] => items.map((i) => i.metadata.name);
const hasNoContinue = (l: ListBody): boolean => l.metadata.continue === undefined || l.metadata.continue === '';

/** Placeholders as the fixtures have them, including the ones inside Status messages and tokens. */
function normalized(v: unknown): unknown {
  const out = placeholders(v) as { message?: unknown; metadata?: { continue?: unknown } };
  if (typeof out.message === 'string') {
    out.message = out.message.replace(/(current: )\d+/, '$1<rv>').replace(/(too old resource version: \d+ \()\d+\)/, '$1<rv>)');
  }
  if (out.metadata && typeof out.metadata.continue === 'string' && out.metadata.continue !== '') out.metadata.continue = '<continue>';
  return out;
}

function statusBody(code: number, reason: string | undefined, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason ? { reason } : {}), code };
}

function listOptionsInvalid(message: string, reason = 'FieldValueForbidden'): Record<string, unknown> {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: ${message}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason, message, field: 'resourceVersionMatch' }] },
    code: 422,
  };
}

const RVM_UNLESS_RV = fixture('errors/list-resourceversionmatch-exact-without-rv').response.body;
const RVM_EXACT_ZERO = listOptionsInvalid('Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
const CONTINUE_WITH_RV = statusBody(400, 'BadRequest', 'specifying resource version is not allowed when using continue');

// ---------------------------------------------------------------------------------------------
// The list table of the SPEC, one test per cell
// ---------------------------------------------------------------------------------------------

type Match = '' | 'Exact' | 'NotOlderThan';
type Paging = 'none' | 'limit' | 'continue';
type RvKind = 'unset' | '0' | 'other';
type Semantic = 'Most Recent' | 'Any' | 'Not older than' | 'Exact' | 'Continue Token, Exact' | 'Invalid' | 'Invalid, HTTP 400';

const TABLE: Array<[Match, Paging, Record<RvKind, Semantic>]> = [
  ['', 'none', { unset: 'Most Recent', '0': 'Any', other: 'Not older than' }],
  ['', 'limit', { unset: 'Most Recent', '0': 'Any', other: 'Exact' }],
  ['', 'continue', { unset: 'Continue Token, Exact', '0': 'Continue Token, Exact', other: 'Invalid, HTTP 400' }],
  ['Exact', 'none', { unset: 'Invalid', '0': 'Invalid', other: 'Exact' }],
  ['Exact', 'limit', { unset: 'Invalid', '0': 'Invalid', other: 'Exact' }],
  ['NotOlderThan', 'none', { unset: 'Invalid', '0': 'Any', other: 'Not older than' }],
  ['NotOlderThan', 'limit', { unset: 'Invalid', '0': 'Any', other: 'Not older than' }],
];

describe('list: resourceVersion × resourceVersionMatch × paging (the SPEC table)', () => {
  let server: RunningServer;
  let cell = 0;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  /**
   * a and c exist at rv1 (a with v=1); then a becomes v=2, b is created, and — the write just
   * before the list — a becomes v=3 at rvW.
   */
  async function seed(ns: string): Promise<{ rv1: number; rvW: number }> {
    await makeNamespace(server.url, ns);
    await makeConfigMap(server.url, ns, 'a', { v: '1' });
    const rv1 = await makeConfigMap(server.url, ns, 'c', { v: '1' });
    await patchConfigMap(server.url, ns, 'a', { data: { v: '2' } });
    await makeConfigMap(server.url, ns, 'b', { v: '1' });
    const rvW = await patchConfigMap(server.url, ns, 'a', { data: { v: '3' } });
    return { rv1, rvW };
  }

  for (const [match, paging, byRv] of TABLE) {
    for (const rvKind of ['unset', '0', 'other'] as const) {
      const semantic = byRv[rvKind];
      it(`resourceVersionMatch=${match || 'unset'}, ${paging === 'none' ? 'no limit' : paging === 'limit' ? 'limit=1' : 'limit=1 & continue'}, resourceVersion ${rvKind === 'other' ? 'other value' : rvKind}: ${semantic}`, async () => {
        const ns = `cell-${++cell}`;
        const { rv1, rvW } = await seed(ns);
        const q = new URLSearchParams();
        if (paging === 'continue') {
          // First page at rvP; then changes the later pages must not show.
          const first = await list(server.url, `${cms(ns)}?limit=1`);
          const rvP = Number(first.metadata.resourceVersion);
          assert.equal(rvP, rvW);
          assert.deepEqual(names(first.items), ['a']);
          assert.ok(first.metadata.continue);
          await makeConfigMap(server.url, ns, 'bb', { v: '1' });
          await patchConfigMap(server.url, ns, 'b', { data: { v: '2' } });
          await deleteConfigMap(server.url, ns, 'c');
          q.set('limit', '1');
          q.set('continue', first.metadata.continue!);
          if (rvKind === '0') q.set('resourceVersion', '0');
          if (rvKind === 'other') q.set('resourceVersion', String(rvP));
          const reply = await call(server.url, 'GET', `${cms(ns)}?${q}`);
          if (semantic === 'Invalid, HTTP 400') {
            assert.equal(reply.status, 400, reply.text);
            assert.deepEqual(reply.json, CONTINUE_WITH_RV);
            return;
          }
          assert.equal(reply.status, 200, reply.text);
          const second = reply.json as ListBody;
          const rest = await allPages(server.url, `${cms(ns)}?limit=1`, second);
          for (const page of rest) assert.equal(page.metadata.resourceVersion, String(rvP));
          const items = rest.flatMap((p) => p.items);
          assert.deepEqual(names(items), ['b', 'c'], 'the snapshot of the first page: no bb, c not yet deleted');
          assert.equal(items[0]!.data!['v'], '1');
          assert.ok(hasNoContinue(rest[rest.length - 1]!));
          return;
        }
        if (match) q.set('resourceVersionMatch', match);
        if (rvKind === '0') q.set('resourceVersion', '0');
        if (rvKind === 'other') q.set('resourceVersion', String(rv1));
        if (paging === 'limit') q.set('limit', '1');
        const path = `${cms(ns)}?${q}`;
        const reply = await call(server.url, 'GET', path);
        if (semantic === 'Invalid') {
          assert.equal(reply.status, 422, reply.text);
          assert.deepEqual(reply.json, rvKind === 'unset' ? RVM_UNLESS_RV : RVM_EXACT_ZERO);
          return;
        }
        assert.equal(reply.status, 200, reply.text);
        const first = reply.json as ListBody;
        assert.equal(first.kind, 'ConfigMapList');
        assert.equal(first.apiVersion, 'v1');
        const pages = await allPages(server.url, path, first);
        const rvs = new Set(pages.map((p) => p.metadata.resourceVersion));
        assert.equal(rvs.size, 1, 'every page has the same metadata.resourceVersion');
        const listRv = Number(first.metadata.resourceVersion);
        const items = pages.flatMap((p) => p.items);
        const byName = new Map(items.map((i) => [i.metadata.name, i]));
        switch (semantic) {
          case 'Most Recent':
            assert.equal(listRv, rvW, 'the newest version, including the write just made');
            assert.deepEqual(names(items), ['a', 'b', 'c']);
            assert.equal(byName.get('a')!.data!['v'], '3');
            break;
          case 'Any':
          case 'Not older than':
            assert.ok(listRv >= rvW, `${listRv} >= ${rvW}`);
            assert.deepEqual(names(items), ['a', 'b', 'c']);
            assert.equal(byName.get('a')!.data!['v'], '3', 'current data');
            break;
          case 'Exact':
            assert.equal(listRv, rv1, 'metadata.resourceVersion is the requested one');
            assert.deepEqual(names(items), ['a', 'c'], 'b did not exist yet');
            assert.equal(byName.get('a')!.data!['v'], '1', 'a as it was then');
            assert.equal(byName.get('a')!.metadata.resourceVersion, String(rv1 - 1));
            break;
          default:
            assert.fail(semantic);
        }
        if (paging === 'none' || semantic === 'Any') {
          // resourceVersion=0 is served from the watch cache, which does not page (the reference ignores limit there).
          assert.equal(pages.length, 1);
          assert.ok(hasNoContinue(first));
          assert.equal(first.metadata.remainingItemCount, undefined);
        } else {
          assert.equal(first.items.length, 1);
          assert.ok(first.metadata.continue);
          assert.equal(first.metadata.remainingItemCount, items.length - 1);
        }
      });
    }
  }

  it('resourceVersionMatch=Exact at the current version and without a limit: exactly that version', async () => {
    const ns = `cell-${++cell}`;
    const { rvW } = await seed(ns);
    const l = await list(server.url, `${cms(ns)}?resourceVersion=${rvW}&resourceVersionMatch=Exact`);
    assert.equal(l.metadata.resourceVersion, String(rvW));
    assert.deepEqual(names(l.items), ['a', 'b', 'c']);
  });

  it('Not older than waits for a version the store reaches within the wait, then serves it', async () => {
    const ns = `cell-${++cell}`;
    const { rvW } = await seed(ns);
    const pending = call(server.url, 'GET', `${cms(ns)}?resourceVersion=${rvW + 1}`);
    await sleep(300);
    await makeConfigMap(server.url, ns, 'late', { v: '1' });
    const reply = await pending;
    assert.equal(reply.status, 200, reply.text);
    assert.ok(Number(reply.json.metadata.resourceVersion) >= rvW + 1);
    assert.ok(names(reply.json.items).includes('late'));
  });

  it('Exact at a version written before anything read the resource (the watch cache starts with the server)', async () => {
    const fresh = await memoryServer();
    try {
      await makeNamespace(fresh.url, 'early');
      const rvA = await makeConfigMap(fresh.url, 'early', 'a', { v: '1' });
      await patchConfigMap(fresh.url, 'early', 'a', { data: { v: '2' } });
      const reply = await call(fresh.url, 'GET', `${cms('early')}?resourceVersion=${rvA}&resourceVersionMatch=Exact`);
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.metadata.resourceVersion, String(rvA));
      assert.deepEqual(reply.json.items.map((i: Obj) => i.data), [{ v: '1' }]);
    } finally {
      await fresh.close();
    }
  });

  for (const name of ['list-resourceversionmatch-exact-without-rv', 'list-resourceversionmatch-invalid-value', 'list-resourceversionmatch-with-continue']) {
    it(`${name}: the reference's 422`, async () => {
      const f = fixture(`errors/${name}`);
      await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ref-errors' } } });
      const reply = await call(server.url, f.request.method, f.request.path, { headers: f.request.headers });
      assert.equal(reply.status, f.response.status, reply.text);
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(reply.json, f.response.body);
    });
  }

  it('resourceVersionMatch=NotOlderThan without resourceVersion: 422 as for Exact', async () => {
    const reply = await call(server.url, 'GET', `${cms('default')}?resourceVersionMatch=NotOlderThan&limit=5`);
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.json, RVM_UNLESS_RV);
  });
});

// ---------------------------------------------------------------------------------------------
// get
// ---------------------------------------------------------------------------------------------

describe('get: resourceVersion unset / "0" / other value', () => {
  let server: RunningServer;
  let rv1: number;
  let rvW: number;
  before(async () => {
    server = await memoryServer();
    await makeNamespace(server.url, 'g');
    rv1 = await makeConfigMap(server.url, 'g', 'obj', { v: '1' });
    await patchConfigMap(server.url, 'g', 'obj', { data: { v: '2' } });
  });
  after(() => server.close());

  it('unset: Most Recent, the write just made', async () => {
    rvW = await patchConfigMap(server.url, 'g', 'obj', { data: { v: '3' } });
    const r = await mustOk(call(server.url, 'GET', `${cms('g')}/obj`));
    assert.equal(r.json.data.v, '3');
    assert.equal(r.json.metadata.resourceVersion, String(rvW));
  });

  it('"0": Any, the object (current here)', async () => {
    const r = await mustOk(call(server.url, 'GET', `${cms('g')}/obj?resourceVersion=0`));
    assert.equal(r.json.metadata.name, 'obj');
    assert.equal(r.json.data.v, '3');
  });

  it('other value (older): Not older than, so the current object, not the old one', async () => {
    const r = await mustOk(call(server.url, 'GET', `${cms('g')}/obj?resourceVersion=${rv1}`));
    assert.equal(r.json.data.v, '3');
    assert.equal(r.json.metadata.resourceVersion, String(rvW));
  });

  it('other value not reached yet: waits for it, then answers', async () => {
    const target = rvW + 1;
    const pending = call(server.url, 'GET', `${cms('g')}/obj?resourceVersion=${target}`);
    await sleep(300);
    const rv = await patchConfigMap(server.url, 'g', 'obj', { data: { v: '4' } });
    assert.equal(rv, target);
    const r = await pending;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data.v, '4');
    rvW = rv;
  });
});

// ---------------------------------------------------------------------------------------------
// far-future and malformed versions
// ---------------------------------------------------------------------------------------------

describe('far-future and malformed resourceVersion', { concurrency: true }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    await makeNamespace(server.url, 'ref-errors');
    await makeConfigMap(server.url, 'ref-errors', 'existing', { key: 'value' });
  });
  after(() => server.close());

  for (const name of ['get-far-future-resourceversion', 'list-far-future-resourceversion']) {
    it(`${name}: 504 after about 3 s, Retry-After: 1, the reference's Status`, async () => {
      const f = fixture(`errors/${name}`);
      const started = Date.now();
      const reply = await call(server.url, f.request.method, f.request.path, { headers: f.request.headers });
      const elapsed = Date.now() - started;
      assert.equal(reply.status, 504, reply.text);
      assert.ok(elapsed >= 2500, `answered after ${elapsed} ms`);
      assert.ok(elapsed < 10_000, `answered after ${elapsed} ms`);
      assert.equal(reply.headers['retry-after'], '1');
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(normalized(reply.json), f.response.body);
      assert.match(reply.json.message, /^Timeout: Too large resource version: 99999999999, current: \d+$/);
    });
  }

  it('list-far-future-resourceversion-exact: 504 like the list without Exact (the reference answers 500 from etcd)', async () => {
    const f = fixture('errors/list-far-future-resourceversion-exact');
    const started = Date.now();
    const reply = await call(server.url, f.request.method, f.request.path, { headers: f.request.headers });
    assert.equal(reply.status, 504, reply.text);
    assert.ok(Date.now() - started >= 2500);
    assert.equal(reply.headers['retry-after'], '1');
    assert.deepEqual(normalized(reply.json), fixture('errors/list-far-future-resourceversion').response.body);
  });

  it('resourceVersion=abc: 400 (the reference 500) with the reference message', async () => {
    const f = fixture('errors/list-invalid-resource-version');
    const reply = await call(server.url, f.request.method, f.request.path, { headers: f.request.headers });
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.json.kind, 'Status');
    assert.equal(reply.json.code, 400);
    assert.equal(reply.json.message, (f.response.body as { message: string }).message);
  });
});

// ---------------------------------------------------------------------------------------------
// chunking
// ---------------------------------------------------------------------------------------------

describe('chunked lists (limit / continue)', () => {
  let server: RunningServer;
  const ns = 'chunks';
  const all = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
  before(async () => {
    server = await memoryServer();
    await makeNamespace(server.url, ns);
    for (const [i, name] of all.entries()) await makeConfigMap(server.url, ns, name, { i: String(i) }, { parity: i % 2 ? 'odd' : 'even' });
  });
  after(() => server.close());

  it('pages of `limit` items, one resourceVersion, remainingItemCount on every page but the last, no continue on the last', async () => {
    const whole = await list(server.url, cms(ns));
    const pages = await allPages(server.url, `${cms(ns)}?limit=3`);
    assert.deepEqual(pages.map((p) => p.items.length), [3, 3, 1]);
    assert.deepEqual(pages.map((p) => p.metadata.remainingItemCount), [4, 1, undefined]);
    assert.ok(pages[0]!.metadata.continue && pages[1]!.metadata.continue);
    assert.ok(hasNoContinue(pages[2]!));
    assert.ok(!('remainingItemCount' in pages[2]!.metadata));
    for (const p of pages) assert.equal(p.metadata.resourceVersion, whole.metadata.resourceVersion);
    assert.deepEqual(pages.flatMap((p) => p.items), whole.items);
  });

  it('a last page that is exactly full has no continue', async () => {
    const pages = await allPages(server.url, `${cms(ns)}?limit=7`);
    assert.equal(pages.length, 1);
    assert.equal(pages[0]!.items.length, 7);
    assert.ok(hasNoContinue(pages[0]!));
    assert.equal(pages[0]!.metadata.remainingItemCount, undefined);
  });

  it('a limit larger than the collection returns everything, no continue, no remainingItemCount', async () => {
    const l = await list(server.url, `${cms(ns)}?limit=500`);
    assert.deepEqual(names(l.items), all);
    assert.ok(hasNoContinue(l));
    assert.equal(l.metadata.remainingItemCount, undefined);
  });

  it('with a label selector: pages of matching items, continue but no remainingItemCount', async () => {
    const pages = await allPages(server.url, `${cms(ns)}?limit=2&labelSelector=parity%3Deven`);
    assert.deepEqual(pages.flatMap((p) => names(p.items)), ['c0', 'c2', 'c4', 'c6']);
    assert.deepEqual(pages.map((p) => p.items.length), [2, 2]);
    assert.ok(pages[0]!.metadata.continue);
    for (const p of pages) assert.ok(!('remainingItemCount' in p.metadata), JSON.stringify(p.metadata));
  });

  it('with a field selector: no remainingItemCount either', async () => {
    const l = await list(server.url, `${cms(ns)}?limit=1&fieldSelector=metadata.name!%3Dc0`);
    assert.deepEqual(names(l.items), ['c1']);
    assert.ok(l.metadata.continue);
    assert.ok(!('remainingItemCount' in l.metadata));
  });

  it('a list paged while objects are created and deleted returns exactly the snapshot of its first page', async () => {
    const live = 'chunks-live';
    await makeNamespace(server.url, live);
    const o = (i: number) => `o${String(i).padStart(2, '0')}`;
    for (let i = 0; i < 10; i++) await makeConfigMap(server.url, live, o(i * 2), { i: String(i) });
    const first = await list(server.url, `${cms(live)}?limit=2`);
    const rvP = first.metadata.resourceVersion;
    const pages = [first];
    let n = 0;
    while (pages[pages.length - 1]!.metadata.continue) {
      // Between pages: create names that fall before and after the cursor, delete some not reached yet, update others.
      n++;
      await makeConfigMap(server.url, live, o(n * 2 + 1), { new: 'yes' });
      await makeConfigMap(server.url, live, `n${n}`, { new: 'yes' });
      const victim = o(Math.min(18, n * 4 + 2));
      await call(server.url, 'DELETE', `${cms(live)}/${victim}`);
      await call(server.url, 'PATCH', `${cms(live)}/o018`, { body: { data: { changed: String(n) } }, headers: MERGE });
      const token = pages[pages.length - 1]!.metadata.continue!;
      pages.push(await list(server.url, `${cms(live)}?limit=2&continue=${encodeURIComponent(token)}`));
    }
    for (const p of pages) assert.equal(p.metadata.resourceVersion, rvP);
    const items = pages.flatMap((p) => p.items);
    const seen = names(items);
    assert.equal(new Set(seen).size, seen.length, `no duplicates: ${seen}`);
    const snapshot = await list(server.url, `${cms(live)}?resourceVersion=${rvP}&resourceVersionMatch=Exact`);
    assert.equal(snapshot.metadata.resourceVersion, rvP);
    assert.deepEqual(items, snapshot.items);
    assert.equal(seen.length, 10);
  });

  it('pages a list across all namespaces', async () => {
    const whole = await list(server.url, '/api/v1/configmaps');
    const pages = await allPages(server.url, '/api/v1/configmaps?limit=3');
    assert.deepEqual(pages.flatMap((p) => p.items), whole.items);
    assert.ok(pages.length > 2);
  });
});

// ---------------------------------------------------------------------------------------------
// continue tokens
// ---------------------------------------------------------------------------------------------

describe('continue tokens', () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    await makeNamespace(server.url, 'ref-errors');
  });
  after(() => server.close());

  for (const name of ['list-garbage-continue', 'list-continue-not-a-key']) {
    it(`${name}: the reference's 400`, async () => {
      const f = fixture(`errors/${name}`);
      const reply = await call(server.url, f.request.method, f.request.path, { headers: f.request.headers });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(reply.json, f.response.body);
    });
  }
});

describe('continue tokens and exact lists of compacted versions (history window 300 ms)', () => {
  let server: RunningServer;
  const crafted = fixture('errors/list-continue-crafted-old-rv');
  before(async () => {
    // historyWindowMs: how long changes stay available to exact lists and continue tokens.
    const options: ServerOptions & { historyWindowMs: number } = { bindAddress: '127.0.0.1', port: 0, storage: 'memory', dataDir: '', historyWindowMs: 300, insecure: true, authorizationMode: 'AlwaysAllow', namespaceDefaults: false, kubernetesService: false, localApiServices: false, apfBootstrap: false };
    server = await startServer(options);
    await makeNamespace(server.url, 'ref-errors');
    await list(server.url, cms('ref-errors')); // the configmaps cache starts here, before revision 12
    for (const name of ['a', 'x', 'y']) await makeConfigMap(server.url, 'ref-errors', name, { v: '0' });
    for (let i = 1; i <= 8; i++) await patchConfigMap(server.url, 'ref-errors', 'a', { data: { v: String(i) } });
  });
  after(() => server.close());

  it('before compaction the crafted token (rv 12, start "x") is served: from key "x" at revision 12', async () => {
    assert.ok(Number((await list(server.url, cms('ref-errors'))).metadata.resourceVersion) > 12);
    const reply = await call(server.url, 'GET', crafted.request.path);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.metadata.resourceVersion, '12');
    assert.deepEqual(names(reply.json.items), ['x']);
    const rest = await allPages(server.url, `${cms('ref-errors')}?limit=1`, reply.json as ListBody);
    assert.deepEqual(rest.flatMap((p) => names(p.items)), ['x', 'y']);
  });

  it('list-continue-crafted-old-rv: once compacted, 410 Expired with a fresh token that carries on from the same key', async () => {
    await sleep(900);
    const reply = await call(server.url, 'GET', crafted.request.path, { headers: crafted.request.headers });
    assert.equal(reply.status, 410, reply.text);
    assert.equal(reply.headers['content-type'], crafted.response.headers['content-type']);
    assert.deepEqual(normalized(reply.json), crafted.response.body);
    const token = reply.json.metadata.continue as string;
    assert.ok(token);
    const next = await call(server.url, 'GET', `${cms('ref-errors')}?limit=1&continue=${encodeURIComponent(token)}`);
    assert.equal(next.status, 200, next.text);
    const pages = await allPages(server.url, `${cms('ref-errors')}?limit=1`, next.json as ListBody);
    assert.deepEqual(pages.flatMap((p) => names(p.items)), ['x', 'y'], 'the inconsistent continuation starts at the token\'s key');
  });

  it('a continue token of a page whose version was compacted: 410 with a token that resumes after that page', async () => {
    const first = await list(server.url, `${cms('ref-errors')}?limit=1`);
    assert.deepEqual(names(first.items), ['a']);
    await patchConfigMap(server.url, 'ref-errors', 'y', { data: { v: 'later' } });
    await sleep(900);
    await patchConfigMap(server.url, 'ref-errors', 'y', { data: { v: 'latest' } });
    const reply = await call(server.url, 'GET', `${cms('ref-errors')}?limit=1&continue=${encodeURIComponent(first.metadata.continue!)}`);
    assert.equal(reply.status, 410, reply.text);
    assert.deepEqual(normalized(reply.json), crafted.response.body);
    const pages = await allPages(server.url, `${cms('ref-errors')}?limit=1`, await list(server.url, `${cms('ref-errors')}?limit=1&continue=${encodeURIComponent(reply.json.metadata.continue)}`));
    const items = pages.flatMap((p) => p.items);
    assert.deepEqual(names(items), ['x', 'y']);
    assert.equal(items[1]!.data!['v'], 'latest', 'the continuation shows the current state');
  });

  it('Exact (and the legacy limit+resourceVersion) at a compacted version: 410 "The resourceVersion for the provided list is too old."', async () => {
    await sleep(900);
    const expected = statusBody(410, 'Expired', 'The resourceVersion for the provided list is too old.');
    for (const q of ['resourceVersion=7&resourceVersionMatch=Exact', 'resourceVersion=7&limit=1', 'resourceVersion=7&resourceVersionMatch=Exact&limit=1']) {
      const reply = await call(server.url, 'GET', `${cms('ref-errors')}?${q}`);
      assert.equal(reply.status, 410, `${q}: ${reply.text}`);
      assert.deepEqual(reply.json, expected, q);
    }
  });

  it('Not older than a compacted version is the current state, and so is a get', async () => {
    const current = await list(server.url, cms('ref-errors'));
    const l = await list(server.url, `${cms('ref-errors')}?resourceVersion=7&resourceVersionMatch=NotOlderThan`);
    assert.deepEqual(l.items, current.items);
    const legacy = await list(server.url, `${cms('ref-errors')}?resourceVersion=7`);
    assert.deepEqual(legacy.items, current.items);
    const g = await mustOk(call(server.url, 'GET', `${cms('ref-errors')}/y?resourceVersion=7`));
    assert.equal(g.json.data.v, 'latest');
  });
});

// ---------------------------------------------------------------------------------------------
// selectors
// ---------------------------------------------------------------------------------------------

describe('label and field selectors over HTTP', () => {
  let server: RunningServer;
  const ns = 'sel';
  const PODS = `/api/v1/namespaces/${ns}/pods`;
  before(async () => {
    server = await memoryServer();
    await makeNamespace(server.url, 'ref-errors');
    await makeNamespace(server.url, ns);
    await makeConfigMap(server.url, ns, 'web-prod', { k: 'v' }, { app: 'web', env: 'prod', tier: 'front' });
    await makeConfigMap(server.url, ns, 'web-dev', { k: 'v' }, { app: 'web', env: 'dev' });
    await makeConfigMap(server.url, ns, 'db-prod', { k: 'v' }, { app: 'db', env: 'prod', version: '10' });
    await makeConfigMap(server.url, ns, 'plain', { k: 'v' });
  });
  after(() => server.close());

  for (const name of ['list-invalid-label-selector', 'list-invalid-label-selector-value', 'list-invalid-field-selector-syntax', 'list-unsupported-field-selector']) {
    it(`${name}: the reference's 400`, async () => {
      const f = fixture(`errors/${name}`);
      const reply = await call(server.url, f.request.method, f.request.path, { headers: f.request.headers });
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(reply.json, f.response.body);
    });
  }

  const labelCases: Array<[string, string[]]> = [
    ['app=web', ['web-dev', 'web-prod']],
    ['app==web', ['web-dev', 'web-prod']],
    ['app!=web', ['db-prod', 'plain']],
    ['env in (prod,staging)', ['db-prod', 'web-prod']],
    ['env notin (prod)', ['plain', 'web-dev']],
    ['tier', ['web-prod']],
    ['!tier', ['db-prod', 'plain', 'web-dev']],
    ['app=web,env=prod', ['web-prod']],
    ['app,!tier', ['db-prod', 'web-dev']],
    ['version>9', ['db-prod']],
    ['version<9', []],
    ['', ['db-prod', 'plain', 'web-dev', 'web-prod']],
  ];
  for (const [selector, expected] of labelCases) {
    it(`labelSelector "${selector}"`, async () => {
      const l = await list(server.url, `${cms(ns)}?labelSelector=${encodeURIComponent(selector)}`);
      assert.deepEqual(names(l.items).sort(), expected);
    });
  }

  it('fieldSelector metadata.name = / == / != and combined with a label selector', async () => {
    assert.deepEqual(names((await list(server.url, `${cms(ns)}?fieldSelector=metadata.name%3Dplain`)).items), ['plain']);
    assert.deepEqual(names((await list(server.url, `${cms(ns)}?fieldSelector=metadata.name%3D%3Dplain`)).items), ['plain']);
    assert.deepEqual(names((await list(server.url, `${cms(ns)}?fieldSelector=metadata.name!%3Dplain`)).items).sort(), ['db-prod', 'web-dev', 'web-prod']);
    assert.deepEqual(names((await list(server.url, `${cms(ns)}?fieldSelector=metadata.name!%3Dweb-prod&labelSelector=app%3Dweb`)).items), ['web-dev']);
    assert.deepEqual(names((await list(server.url, `${cms(ns)}?fieldSelector=metadata.name%3Dnothing`)).items), []);
  });

  it('fieldSelector metadata.namespace on a list across all namespaces', async () => {
    const l = await list(server.url, `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}`);
    assert.deepEqual(names(l.items).sort(), ['db-prod', 'plain', 'web-dev', 'web-prod']);
    for (const i of l.items) assert.equal(i.metadata.namespace, ns);
    const other = await list(server.url, `/api/v1/configmaps?fieldSelector=metadata.namespace!%3D${ns}`);
    for (const i of other.items) assert.notEqual(i.metadata.namespace, ns);
  });

  it('pods by spec.nodeName and status.phase', async () => {
    const pod = (name: string, nodeName?: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] } });
    await mustOk(call(server.url, 'POST', PODS, { body: pod('on-node-1', 'node-1') }), 201);
    await mustOk(call(server.url, 'POST', PODS, { body: pod('on-node-2', 'node-2') }), 201);
    await mustOk(call(server.url, 'POST', PODS, { body: pod('unscheduled') }), 201);
    await mustOk(call(server.url, 'PATCH', `${PODS}/on-node-1/status`, { body: { status: { phase: 'Running' } }, headers: MERGE }));
    const sel = async (s: string) => names((await list(server.url, `${PODS}?fieldSelector=${encodeURIComponent(s)}`)).items).sort();
    assert.deepEqual(await sel('spec.nodeName=node-1'), ['on-node-1']);
    assert.deepEqual(await sel('spec.nodeName='), ['unscheduled'], 'how a scheduler finds pods without a node');
    assert.deepEqual(await sel('spec.nodeName!=node-1'), ['on-node-2', 'unscheduled']);
    assert.deepEqual(await sel('status.phase=Running'), ['on-node-1']);
    assert.deepEqual(await sel('status.phase!=Running'), ['on-node-2', 'unscheduled']);
    assert.deepEqual(await sel('spec.nodeName=node-1,status.phase=Running'), ['on-node-1']);
    assert.deepEqual(await sel('spec.nodeName=node-2,status.phase=Running'), []);
    const all = await list(server.url, `/api/v1/pods?fieldSelector=${encodeURIComponent('spec.nodeName=node-2')}`);
    assert.deepEqual(names(all.items), ['on-node-2']);
    // The watch cache's index by node (made by the lists above) follows a binding and a delete.
    await mustOk(call(server.url, 'POST', `${PODS}/unscheduled/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'unscheduled' }, target: { kind: 'Node', name: 'node-1' } } }), 201);
    assert.deepEqual(await sel('spec.nodeName=node-1'), ['on-node-1', 'unscheduled']);
    assert.deepEqual(await sel('spec.nodeName='), []);
    await mustOk(call(server.url, 'DELETE', `${PODS}/on-node-1?gracePeriodSeconds=0`));
    assert.deepEqual(await sel('spec.nodeName=node-1'), ['unscheduled']);
    const paged = await list(server.url, `/api/v1/pods?limit=1&fieldSelector=${encodeURIComponent('spec.nodeName=node-1')}`);
    assert.deepEqual(names(paged.items), ['unscheduled']);
  });

  it('status.phase=Pending selects pods just created (the reference sets phase Pending on create)', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fresh' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const created = await mustOk(call(server.url, 'POST', `/api/v1/namespaces/${ns}/pods`, { body: pod }), 201);
    assert.equal(created.json.status?.phase, 'Pending');
    const l = await list(server.url, `/api/v1/namespaces/${ns}/pods?fieldSelector=${encodeURIComponent('status.phase=Pending')}`);
    assert.ok(names(l.items).includes('fresh'));
  });

  it('deletecollection deletes only what the label selector matches', async () => {
    const dc = 'sel-dc';
    await makeNamespace(server.url, dc);
    await makeConfigMap(server.url, dc, 'keep-1', {}, { keep: 'yes' });
    await makeConfigMap(server.url, dc, 'drop-1', {}, { keep: 'no' });
    await makeConfigMap(server.url, dc, 'drop-2', {}, { keep: 'no' });
    await makeConfigMap(server.url, dc, 'unlabeled', {});
    const r = await mustOk(call(server.url, 'DELETE', `${cms(dc)}?labelSelector=keep%3Dno`));
    assert.equal(r.json.kind, 'ConfigMapList');
    assert.deepEqual(names(r.json.items).sort(), ['drop-1', 'drop-2']);
    assert.deepEqual(names((await list(server.url, cms(dc))).items), ['keep-1', 'unlabeled']);
  });

  it('deletecollection deletes only what the field selector matches, and only in its namespace', async () => {
    const dc = 'sel-dc2';
    await makeNamespace(server.url, dc);
    await makeConfigMap(server.url, dc, 'one', {});
    await makeConfigMap(server.url, dc, 'two', {});
    await makeConfigMap(server.url, ns, 'two', {});
    const r = await mustOk(call(server.url, 'DELETE', `${cms(dc)}?fieldSelector=metadata.name%3Dtwo`));
    assert.deepEqual(names(r.json.items), ['two']);
    assert.deepEqual(names((await list(server.url, cms(dc))).items), ['one']);
    assert.ok(names((await list(server.url, cms(ns))).items).includes('two'));
    await mustOk(call(server.url, 'DELETE', `${cms(ns)}/two`));
  });

  it('deletecollection with an invalid selector: the same 400 as the list, nothing deleted', async () => {
    const f = fixture('errors/list-invalid-label-selector');
    const before = await list(server.url, cms(ns));
    const reply = await call(server.url, 'DELETE', `${cms(ns)}?labelSelector=app%20in%20(a`);
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json, f.response.body);
    assert.deepEqual((await list(server.url, cms(ns))).items, before.items);
  });
});

// ---------------------------------------------------------------------------------------------
// lists across all namespaces
// ---------------------------------------------------------------------------------------------

describe('lists across all namespaces', () => {
  let server: RunningServer;
  const deployment = (name: string) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  before(async () => {
    server = await memoryServer();
    for (const ns of ['team-a', 'team-b']) {
      await makeNamespace(server.url, ns);
      await makeConfigMap(server.url, ns, `cm-${ns}`, { owner: ns });
      await mustOk(call(server.url, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(`web-${ns}`) }), 201);
    }
  });
  after(() => server.close());

  it('/api/v1/configmaps lists the configmaps of every namespace', async () => {
    const l = await list(server.url, '/api/v1/configmaps');
    assert.equal(l.kind, 'ConfigMapList');
    assert.equal(l.apiVersion, 'v1');
    const mine = l.items.filter((i) => i.metadata.name.startsWith('cm-'));
    assert.deepEqual(mine.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ['team-a/cm-team-a', 'team-b/cm-team-b']);
    assert.ok(Number(l.metadata.resourceVersion) >= Math.max(...l.items.map((i) => Number(i.metadata.resourceVersion))));
  });

  it('/apis/apps/v1/deployments lists the deployments of every namespace', async () => {
    const l = await list(server.url, '/apis/apps/v1/deployments');
    assert.equal(l.kind, 'DeploymentList');
    assert.equal(l.apiVersion, 'apps/v1');
    assert.deepEqual(l.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ['team-a/web-team-a', 'team-b/web-team-b']);
    const one = await list(server.url, '/apis/apps/v1/deployments?fieldSelector=metadata.namespace%3Dteam-b');
    assert.deepEqual(names(one.items), ['web-team-b']);
  });

  it('an Exact list across all namespaces at an older version', async () => {
    const before = await list(server.url, '/apis/apps/v1/deployments');
    await mustOk(call(server.url, 'DELETE', '/apis/apps/v1/namespaces/team-a/deployments/web-team-a'));
    const now = await list(server.url, '/apis/apps/v1/deployments');
    assert.deepEqual(names(now.items), ['web-team-b']);
    const then = await list(server.url, `/apis/apps/v1/deployments?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.deepEqual(then.items, before.items);
  });
});
