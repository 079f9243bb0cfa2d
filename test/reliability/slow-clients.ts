// Slow clients. Watchers that never read (HTTP/1.1 connections, and HTTP/2 streams, some on a
// session that also carries a healthy watcher) while objects are written at a steady pace; and
// clients that send their request headers a byte at a time. Measured: the server's RSS, a GET's
// latency meanwhile (and with the same writes and no slow client, for comparison), how many
// stalled watchers the server cut off, that the healthy watchers saw every write, and how long
// the server keeps a slow-header connection.
import { connect as http2Connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { ClientTls } from '../helpers.js';
import { Client } from './client.js';
import { Figures, mib, msText, quantile } from './figures.js';
import { startGetSampler } from './get-sampler.js';
import type { ProbeServer } from './server.js';

export interface SlowWatcherLoad {
  /** Stalled watchers, half over HTTP/1.1 connections and half as HTTP/2 streams. */
  watchers: number;
  /** Objects written meanwhile, `rate` a second, each with a `size`-byte value. */
  objects: number;
  size: number;
  rate: number;
}

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TLS connection to the server (HTTP/1.1 by ALPN). */
function tlsSocket(url: URL, tls: ClientTls): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ...tls, ALPNProtocols: ['http/1.1'] }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Watches whether a socket has ended (on the server's side: end, close or error). */
function endOf(socket: TLSSocket): () => boolean {
  let ended = false;
  const mark = () => (ended = true);
  socket.on('end', mark).on('close', mark).on('error', mark);
  return () => ended;
}

interface StalledHttp1 {
  /** Whether the server has closed it: resumed, a closed connection gives what the kernel held, then its end. */
  ended(): Promise<boolean>;
  destroy(): void;
}

/** An HTTP/1.1 watch over its own connection that reads the response head, then nothing. */
async function stalledHttp1(url: URL, tls: ClientTls): Promise<StalledHttp1> {
  const socket = await tlsSocket(url, tls);
  const ended = endOf(socket);
  socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`);
  const head = await new Promise<string>((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      resolve(text);
    };
    socket.on('data', onData);
  });
  if (!head.startsWith('HTTP/1.1 200')) throw new Error(`watch refused: ${head.slice(0, 200)}`);
  return {
    async ended() {
      socket.on('data', () => undefined);
      socket.resume();
      for (let i = 0; i < 300 && !ended(); i++) await sleep(50);
      return ended();
    },
    destroy: () => socket.destroy(),
  };
}

/**
 * An HTTP/2 session. `goWindows`: the flow-control windows of Go's client (client-go): 4 MiB a
 * stream, 1 GiB the connection; else Node's default 64 KiB a stream, with the 1 GiB connection
 * window (so that unread streams hold only their own windows, not the whole session's).
 */
async function h2Session(server: ProbeServer, goWindows: boolean): Promise<ClientHttp2Session> {
  const session = http2Connect(server.url, { ...server.admin, ...(goWindows ? { settings: { initialWindowSize: 4 * MiB } } : {}) });
  session.on('error', () => undefined);
  await new Promise((resolve) => session.once('connect', resolve));
  session.setLocalWindowSize(1 << 30);
  return session;
}

interface H2Watch {
  stream: ClientHttp2Stream;
  /** Closed by the server (a paused stream that was reset is closed, though it emits 'close' only once read). */
  ended(): boolean;
}

/** An HTTP/2 watch of `path`; without `onEvent` its data is never read. */
function h2Watch(session: ClientHttp2Session, path: string, onEvent?: (line: string) => void): Promise<H2Watch> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, accept: 'application/json' });
    let ended = false;
    stream.on('close', () => (ended = true));
    stream.on('error', () => (ended = true));
    stream.once('response', (headers) => {
      if (headers[':status'] !== 200) reject(new Error(`watch refused: ${headers[':status']}`));
      resolve({ stream, ended: () => ended || stream.closed });
    });
    if (onEvent) {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        const lines = (rest + text).split('\n');
        rest = lines.pop()!;
        for (const line of lines) if (line) onEvent(line);
      });
    }
  });
}

/** The resourceVersions a healthy watcher saw, in order of arrival. */
function recorder(): { rvs: number[]; onEvent(line: string): void } {
  const rvs: number[] = [];
  return {
    rvs,
    onEvent(line) {
      const e = JSON.parse(line) as { type: string; object: { metadata: { resourceVersion: string } } };
      if (e.type !== 'BOOKMARK') rvs.push(Number(e.object.metadata.resourceVersion));
    },
  };
}

/** Calls `sample()` every `everyMs` until stopped. */
function sampler<T>(everyMs: number, sample: () => Promise<T> | T): { values: T[]; stop(): Promise<void> } {
  const values: T[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      values.push(await sample());
      await sleep(everyMs);
    }
  })();
  return { values, stop: async () => { running = false; await loop; } };
}

interface Phase {
  /** resourceVersions of the objects written, ascending. */
  rvs: number[];
  failed: number;
  seconds: number;
  getMs: number[];
  rssPeak: number;
}

/** Writes `count` ConfigMaps of `load.size` into `collection` at `load.rate` a second. */
async function writeObjects(writer: Client, collection: string, prefix: string, count: number, load: SlowWatcherLoad): Promise<{ rvs: number[]; failed: number; seconds: number }> {
  const value = 'x'.repeat(load.size);
  const rvs: number[] = [];
  let failed = 0;
  const started = performance.now();
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / load.rate - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(writer.request('POST', collection, { body: { metadata: { name: `${prefix}-${i}` }, data: { v: value } }, timeoutMs: 60_000 }).then((a) => {
      if (a.status === 201) rvs.push(Number((JSON.parse(a.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
      else failed++;
    }));
  }
  await Promise.all(writes);
  return { rvs: rvs.sort((a, b) => a - b), failed, seconds: (performance.now() - started) / 1000 };
}

/** Writes as writeObjects does, while a GET is timed every 20 ms and RSS sampled every 100 ms. */
async function writePhase(server: ProbeServer, writer: Client, collection: string, prefix: string, count: number, load: SlowWatcherLoad): Promise<Phase> {
  const rss = sampler(100, () => server.rss());
  const gets = await startGetSampler(server.url, `${collection}/probe-get`, server.admin);
  const written = await writeObjects(writer, collection, prefix, count, load);
  await sleep(500);
  const getMs = await gets.stop();
  await rss.stop();
  return { ...written, getMs, rssPeak: Math.max(...rss.values) };
}

const latency = (ms: number[]) => `p50 ${msText(quantile(ms, 0.5))}, p99 ${msText(quantile(ms, 0.99))}, max ${msText(Math.max(...ms))} (${ms.length} GETs)`;

/**
 * `load.watchers` watchers that never read while `load.objects` objects are written. One HTTP/2
 * session with Go's windows carries healthy watchers next to stalled streams; they must see every
 * write, in order, and stay open. After, the same writes with no watcher open give the GET
 * latency of the writes alone. Both are measured after a warm-up (200 writes, unmeasured),
 * so that neither pays for the server's first compilations.
 */
export async function slowWatchers(server: ProbeServer, load: SlowWatcherLoad, figures: Figures): Promise<void> {
  const writer = new Client(server.url, server.admin, undefined, 16);
  const ns = `probe-slow-${Date.now()}`;
  const sessions: ClientHttp2Session[] = [];
  const h1: StalledHttp1[] = [];
  const h2: H2Watch[] = [];
  try {
    await writer.json('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
    const collection = `/api/v1/namespaces/${ns}/configmaps`;
    await writer.json('POST', collection, { body: { metadata: { name: 'probe-get' }, data: { a: 'b' } } });
    const warmUp = await writeObjects(writer, collection, 'warm-up', Math.min(200, Math.ceil(load.objects / 10)), load);
    const list = await writer.json<{ metadata: { resourceVersion: string } }>('GET', collection);
    const watchPath = `${collection}?watch=1&resourceVersion=${list.metadata.resourceVersion}`;
    const rssBefore = server.rss();

    const h1Count = Math.ceil(load.watchers / 2);
    const h2Count = load.watchers - h1Count;
    for (let i = 0; i < h1Count; i += 50) {
      h1.push(...await Promise.all(Array.from({ length: Math.min(50, h1Count - i) }, () => stalledHttp1(new URL(watchPath, server.url), server.admin))));
    }
    // The shared session: two healthy watchers and up to 20 stalled streams (each holds 4 MiB
    // of this process's memory); the other stalled streams 100 a session.
    const shared = await h2Session(server, true);
    sessions.push(shared);
    const healthy = [recorder(), recorder()];
    const healthyWatches = await Promise.all(healthy.map((r) => h2Watch(shared, watchPath, r.onEvent)));
    const onShared = Math.min(20, h2Count);
    h2.push(...await Promise.all(Array.from({ length: onShared }, () => h2Watch(shared, watchPath))));
    for (let opened = onShared; opened < h2Count; opened += 100) {
      const session = await h2Session(server, false);
      sessions.push(session);
      h2.push(...await Promise.all(Array.from({ length: Math.min(100, h2Count - opened) }, () => h2Watch(session, watchPath))));
    }
    const rssOpen = server.rss();

    const fed = await writePhase(server, writer, collection, 'o', load.objects, load);
    const rssAfter = server.rss();
    const rssPeak = Math.max(fed.rssPeak, rssAfter);
    const last = fed.rvs[fed.rvs.length - 1] ?? 0;
    for (let i = 0; i < 100 && healthy.some((h) => (h.rvs[h.rvs.length - 1] ?? 0) < last); i++) await sleep(100);
    const complete = healthy.filter((h, i) => !healthyWatches[i]!.ended() && h.rvs.length === fed.rvs.length && h.rvs.every((rv, j) => rv === fed.rvs[j])).length;
    const h2Ended = h2.filter((w) => w.ended()).length;
    const h1Ended = (await Promise.all(h1.map((w) => w.ended()))).filter(Boolean).length;
    for (const w of h1) w.destroy();
    for (const s of sessions) s.destroy();
    const alone = await writePhase(server, writer, collection, 'alone', load.objects, load);

    figures.note('load', `${load.watchers} stalled watchers (${h1Count} HTTP/1.1 connections, ${h2Count} HTTP/2 streams on ${sessions.length} sessions, ${onShared} of them next to ${healthy.length} healthy watchers), ${fed.rvs.length} objects of ${load.size / 1024} KiB written at ${load.rate}/s in ${fed.seconds.toFixed(1)} s`);
    figures.note('server RSS', `${mib(rssBefore)} before the watchers, ${mib(rssOpen)} with them open, peak ${mib(rssPeak)} while they are fed, ${mib(rssAfter)} after`);
    figures.note('GET latency with the same writes and no slow client', latency(alone.getMs));
    figures.note('server RSS peak with the same writes and no slow client', mib(alone.rssPeak));
    figures.check('server RSS peak while stalled watchers are fed', mib(rssPeak), '<= 300 MB', rssPeak <= 300e6);
    figures.check('GET latency meanwhile', latency(fed.getMs), 'p99 <= 20 ms', quantile(fed.getMs, 0.99) <= 20);
    figures.check('stalled HTTP/1.1 watchers cut off by the server', `${h1Ended}/${h1Count}`, 'all', h1Ended === h1Count);
    figures.check('stalled HTTP/2 streams cut off by the server', `${h2Ended}/${h2Count}`, 'all', h2Ended === h2Count);
    figures.check('healthy HTTP/2 watchers on a session with stalled streams that saw every write in order and are still open', `${complete}/${healthy.length}`, 'all', complete === healthy.length);
    figures.zero('failed writes', warmUp.failed + alone.failed + fed.failed);
  } finally {
    for (const w of h1) w.destroy();
    for (const w of h2) w.stream.destroy();
    for (const s of sessions) s.destroy();
    writer.close();
  }
}

export interface SlowHeaderLoad {
  /** Connections that send a request head a byte at a time and never finish it. */
  clients: number;
  /** One byte each this often. */
  byteEveryMs: number;
  /** How long to wait for the server to close them all. */
  waitMs: number;
}

/** The reference gives a request head 32 s (its http.Server's ReadHeaderTimeout). */
const HEADER_TIMEOUT_MS = 32_000;

/**
 * `load.clients` connections that send a request head one byte every `load.byteEveryMs`, never
 * finishing it. Measured: how long the server keeps them (up to `load.waitMs`) and what it answers
 * when it gives up, a GET's latency and the server's RSS meanwhile.
 */
export async function slowHeaderClients(server: ProbeServer, load: SlowHeaderLoad, figures: Figures): Promise<void> {
  const url = new URL(server.url);
  const sockets: TLSSocket[] = [];
  const timers: NodeJS.Timeout[] = [];
  try {
    const rssBefore = server.rss();
    const opened = performance.now();
    const closedAfter: number[] = [];
    let answered408 = 0;
    let answeredOther = 0;
    const head = `GET /api/v1/namespaces HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: ${'a'.repeat(64 * 1024)}`;
    const open = async (): Promise<void> => {
      const socket = await tlsSocket(url, server.admin);
      // Each connection's own time: the server's header timer starts when it accepts that connection.
      const connectedAt = performance.now();
      sockets.push(socket);
      let answer = '';
      socket.on('error', () => undefined);
      socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
      socket.once('close', () => {
        closedAfter.push(performance.now() - connectedAt);
        if (answer.startsWith('HTTP/1.1 408')) answered408++;
        else if (answer) answeredOther++;
      });
      let sent = 0;
      const send = () => {
        if (!socket.destroyed && sent < head.length) socket.write(head[sent++]!);
      };
      send();
      timers.push(setInterval(send, load.byteEveryMs));
    };
    for (let i = 0; i < load.clients; i += 50) await Promise.all(Array.from({ length: Math.min(50, load.clients - i) }, open));
    const openSeconds = (performance.now() - opened) / 1000;
    const gets = await startGetSampler(server.url, '/api/v1/namespaces/default', server.admin);
    const rss = sampler(200, () => server.rss());
    while (performance.now() - opened < load.waitMs && closedAfter.length < load.clients) await sleep(200);
    const getMs = await gets.stop();
    await rss.stop();
    const stillOpen = load.clients - closedAfter.length;
    const longest = closedAfter.length ? Math.max(...closedAfter) : NaN;
    const held = stillOpen > 0 ? `${stillOpen}/${load.clients} still open after ${(load.waitMs / 1000).toFixed(0)} s` : `all closed, the last after ${(longest / 1000).toFixed(1)} s`;
    figures.note('load', `${load.clients} HTTPS/1.1 connections sending a request head one byte every ${load.byteEveryMs} ms (opened in ${openSeconds.toFixed(1)} s)`);
    figures.check('slow-header connections held by the server', held, `<= ${HEADER_TIMEOUT_MS / 1000} s (the reference's header timeout) and the time the server takes to notice`, stillOpen === 0 && longest <= HEADER_TIMEOUT_MS + 2_000);
    figures.note('what the server answered them', `${answered408} 408 Request Timeout, ${answeredOther} another answer, ${closedAfter.length - answered408 - answeredOther} closed without an answer`);
    figures.note('GET latency meanwhile', latency(getMs));
    figures.check('server RSS peak meanwhile', `${mib(Math.max(...rss.values))} (${mib(rssBefore)} before)`, '<= 300 MB', Math.max(...rss.values) <= 300e6);
  } finally {
    for (const t of timers) clearInterval(t);
    for (const s of sockets) s.destroy();
  }
}
