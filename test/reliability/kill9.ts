// kill -9 under load: 32 writers (create, update, patch, delete of ConfigMaps in 4 namespaces,
// half over HTTP/2, half over HTTP/1.1) while the server is killed at a random moment; after the
// restart every acknowledged write must be there, and a watch resumed from its last
// resourceVersion must have missed nothing (or be told 410 and re-list).
//
// Each writer owns its keys, so the writes to one key are ordered: after a kill, at most the one
// write in flight (unacknowledged) may or may not have been saved.
import { Client, Http2Client, parsed, type Answer, type Requester } from './client.js';
import type { Figures } from './figures.js';
import { startProbeServer, type ProbeServer } from './server.js';
import { watchStream, type WatchStream } from './watch-stream.js';

export interface Kill9Load {
  rounds: number;
  writers: number;
  keysPerWriter: number;
  /** Each round's writes last a random time in [minMs, maxMs] before the kill. */
  minMs: number;
  maxMs: number;
  seed: number;
}

const NAMESPACES = ['kill9-a', 'kill9-b', 'kill9-c', 'kill9-d'];
const LABEL = 'probe=kill9';

/** What the server should hold for one key, from the writer's acknowledged writes. */
interface KeyState {
  namespace: string;
  name: string;
  /** The last acknowledged state: present with its version and data, or absent. */
  acked: { present: true; rv: number; value: string } | { present: false };
  /** The write in flight when the server died: it may or may not have been saved. */
  inFlight?: { present: true; value: string } | { present: false };
}

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const path = (k: { namespace: string; name: string }) => `/api/v1/namespaces/${k.namespace}/configmaps/${k.name}`;
const collection = (namespace: string) => `/api/v1/namespaces/${namespace}/configmaps`;

function objectOf(a: Answer): { rv: number; value: string } | undefined {
  const o = parsed(a) as { metadata?: { resourceVersion?: string }; data?: { v?: string } } | undefined;
  if (!o?.metadata?.resourceVersion) return undefined;
  return { rv: Number(o.metadata.resourceVersion), value: o.data?.v ?? '' };
}

/** One writer: random writes to its keys until `stop()`; every acknowledged write counted. */
async function writer(client: Requester, keys: KeyState[], random: () => number, until: { stopped: boolean }, counts: { acked: number }): Promise<void> {
  let n = 0;
  while (!until.stopped) {
    const key = keys[Math.floor(random() * keys.length)]!;
    const value = `${key.name}-${Date.now()}-${n++}`;
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: key.name, labels: { probe: 'kill9' } }, data: { v: value } };
    let a: Answer;
    if (!key.acked.present) {
      key.inFlight = { present: true, value };
      a = await client.request('POST', collection(key.namespace), { body, timeoutMs: 10_000 });
      if (a.status !== 201) break;
    } else {
      const choice = random();
      if (choice < 0.35) {
        key.inFlight = { present: true, value };
        a = await client.request('PUT', path(key), { body: { ...body, metadata: { ...body.metadata, resourceVersion: String(key.acked.rv) } }, timeoutMs: 10_000 });
        if (a.status !== 200) break;
      } else if (choice < 0.8) {
        key.inFlight = { present: true, value };
        a = await client.request('PATCH', path(key), { body: { data: { v: value } }, contentType: 'application/merge-patch+json', timeoutMs: 10_000 });
        if (a.status !== 200) break;
      } else {
        key.inFlight = { present: false };
        a = await client.request('DELETE', path(key), { timeoutMs: 10_000 });
        if (a.status !== 200) break;
        key.acked = { present: false };
        key.inFlight = undefined;
        counts.acked++;
        continue;
      }
    }
    const saved = objectOf(a);
    if (!saved) break;
    key.acked = { present: true, rv: saved.rv, value: saved.value };
    key.inFlight = undefined;
    counts.acked++;
  }
}

/** Compares one key with what the server holds now; resets the key to that truth for the next round. */
async function checkKey(admin: Client, key: KeyState): Promise<string | undefined> {
  const a = await admin.request('GET', path(key), { timeoutMs: 10_000 });
  if (a.status !== 200 && a.status !== 404) return `${path(key)}: GET ${a.status} ${a.error ?? a.body.toString().slice(0, 200)}`;
  const now = a.status === 200 ? objectOf(a) : undefined;
  const expected = key.acked;
  const maybe = key.inFlight;
  let problem: string | undefined;
  if (expected.present) {
    if (!now) {
      if (!(maybe && !maybe.present)) problem = `${path(key)}: acknowledged at ${expected.rv} but gone`;
    } else if (now.rv < expected.rv) problem = `${path(key)}: acknowledged at ${expected.rv}, found older ${now.rv}`;
    else if (now.rv === expected.rv && now.value !== expected.value) problem = `${path(key)}: at ${now.rv} holds "${now.value}", acknowledged "${expected.value}"`;
    else if (now.rv > expected.rv && !(maybe?.present && maybe.value === now.value)) problem = `${path(key)}: newer ${now.rv} "${now.value}" than any write`;
  } else if (now && !(maybe?.present && maybe.value === now.value)) problem = `${path(key)}: acknowledged deleted, found "${now.value}" at ${now.rv}`;
  key.acked = now ? { present: true, rv: now.rv, value: now.value } : { present: false };
  key.inFlight = undefined;
  return problem;
}

/** The watch's view of the labelled ConfigMaps: name → resourceVersion. */
class WatchedState {
  readonly objects = new Map<string, number>();
  lastRv = '';
  relists = 0;
  outOfOrder = 0;
  stream: WatchStream | undefined;

  async relist(admin: Client): Promise<void> {
    const list = parsed(await admin.request('GET', `/api/v1/configmaps?labelSelector=${encodeURIComponent(LABEL)}`)) as { metadata: { resourceVersion: string }; items: { metadata: { namespace: string; name: string; resourceVersion: string } }[] };
    this.objects.clear();
    for (const i of list.items) this.objects.set(`${i.metadata.namespace}/${i.metadata.name}`, Number(i.metadata.resourceVersion));
    this.lastRv = list.metadata.resourceVersion;
  }

  /** Watches from lastRv (re-listing on 410) until the connection ends. */
  async follow(server: ProbeServer, admin: Client): Promise<void> {
    for (;;) {
      const stream = watchStream(server.url, server.admin, `/api/v1/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=${encodeURIComponent(LABEL)}&resourceVersion=${this.lastRv}`);
      this.stream = stream;
      let gone = false;
      for await (const event of stream.events()) {
        if (event.type === 'ERROR') {
          gone = (event.object as { code?: number }).code === 410;
          break;
        }
        const meta = (event.object as { metadata: { namespace: string; name: string; resourceVersion: string } }).metadata;
        const rv = Number(meta.resourceVersion);
        if (event.type === 'BOOKMARK') {
          this.lastRv = meta.resourceVersion;
          continue;
        }
        if (rv <= Number(this.lastRv)) this.outOfOrder++;
        this.lastRv = meta.resourceVersion;
        const key = `${meta.namespace}/${meta.name}`;
        if (event.type === 'DELETED') this.objects.delete(key);
        else this.objects.set(key, rv);
      }
      if (stream.status === 410) gone = true;
      if (!gone) return;
      this.relists++;
      await this.relist(admin);
    }
  }
}

/** Waits until the watch has seen a write made after a list, then compares the watch's state with the list. */
async function watchGaps(admin: Client, watched: WatchedState, round: number): Promise<string[]> {
  const list = parsed(await admin.request('GET', `/api/v1/configmaps?labelSelector=${encodeURIComponent(LABEL)}`)) as { items: { metadata: { namespace: string; name: string; resourceVersion: string } }[] };
  // A labelled write after the list: once the watch has seen it, it has seen everything before it.
  const touch = await admin.request('POST', collection(NAMESPACES[0]!), { body: { metadata: { name: `touch-${round}`, labels: { probe: 'kill9' } }, data: { v: 'touch' } } });
  const touchRv = objectOf(touch)?.rv ?? Infinity;
  const deadline = Date.now() + 15_000;
  while (Number(watched.lastRv) < touchRv && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const gaps: string[] = [];
  if (Number(watched.lastRv) < touchRv) gaps.push(`round ${round}: the watch did not reach ${touchRv} (at ${watched.lastRv})`);
  const expected = new Map(list.items.map((i) => [`${i.metadata.namespace}/${i.metadata.name}`, Number(i.metadata.resourceVersion)]));
  expected.set(`${NAMESPACES[0]}/touch-${round}`, touchRv);
  for (const [k, rv] of expected) if (watched.objects.get(k) !== rv) gaps.push(`round ${round}: ${k} listed at ${rv}, watched at ${watched.objects.get(k) ?? 'absent'}`);
  for (const k of watched.objects.keys()) if (!expected.has(k)) gaps.push(`round ${round}: ${k} watched but not listed`);
  return gaps;
}

export async function kill9(dataDir: string, load: Kill9Load, figures: Figures): Promise<void> {
  const random = seededRandom(load.seed);
  const keys: KeyState[][] = [];
  for (let w = 0; w < load.writers; w++) {
    keys.push(Array.from({ length: load.keysPerWriter }, (_, k) => ({ namespace: NAMESPACES[w % NAMESPACES.length]!, name: `w${w}-k${k}`, acked: { present: false } as KeyState['acked'] })));
  }
  const counts = { acked: 0 };
  const lost: string[] = [];
  const gaps: string[] = [];
  const watched = new WatchedState();
  let server = await startProbeServer(dataDir);
  let restartMs = 0;
  try {
    const setup = new Client(server.url, server.admin);
    for (const ns of NAMESPACES) await setup.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    await watched.relist(setup);
    setup.close();
    for (let round = 1; round <= load.rounds; round++) {
      const admin = new Client(server.url, server.admin);
      const following = watched.follow(server, admin);
      const until = { stopped: false };
      const clients: Requester[] = keys.map((_, w) => (w % 2 ? new Client(server.url, server.admin, undefined, 1) : new Http2Client(server.url, server.admin)));
      const writing = keys.map((ks, w) => writer(clients[w]!, ks, seededRandom(load.seed * 1000 + round * 100 + w), until, counts));
      await new Promise((r) => setTimeout(r, load.minMs + random() * (load.maxMs - load.minMs)));
      await server.kill9();
      until.stopped = true;
      await Promise.all(writing);
      watched.stream?.close();
      await following;
      for (const c of clients) c.close();
      admin.close();
      const started = performance.now();
      server = await startProbeServer(dataDir);
      restartMs = Math.max(restartMs, performance.now() - started);
      const checker = new Client(server.url, server.admin);
      for (const ks of keys) for (const k of ks) {
        const problem = await checkKey(checker, k);
        if (problem) lost.push(`round ${round}: ${problem}`);
      }
      const resumed = watched.follow(server, checker);
      gaps.push(...(await watchGaps(checker, watched, round)));
      watched.stream?.close();
      await resumed;
      checker.close();
    }
  } finally {
    await server.stop();
  }
  figures.note('rounds', String(load.rounds));
  figures.note('acknowledged writes checked', String(counts.acked));
  figures.zero('acknowledged writes lost', lost.length, lost.slice(0, 3).join('; '));
  figures.zero('watch gaps across restarts', gaps.length + watched.outOfOrder, gaps.slice(0, 3).join('; '));
  figures.note('watch re-lists after 410', String(watched.relists));
  figures.note('slowest restart', `${restartMs.toFixed(0)} ms`);
}
