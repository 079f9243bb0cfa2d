// End to end: real watch clients against the real capstan command — kubectl get -w, and an
// informer of @kubernetes/client-node (list, then watch, then re-list or resume after a restart).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { call, kubeconfigTls, mustOk, sleep, until } from '../helpers.js';
import { kubectl, startCapstan, stopCapstan } from './harness.js';

const KUBECTL = process.env['KUBECTL'] ?? 'kubectl';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

type Capstan = Awaited<ReturnType<typeof startCapstan>>;

function serverOf(kubeconfig: string): string {
  const m = /server: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'));
  assert.ok(m, 'kubeconfig names a server');
  return m[1]!;
}

/** Splits concatenated JSON documents (kubectl -o json -w prints one after the other). */
function jsonDocuments(text: string): { docs: unknown[]; rest: string } {
  const docs: unknown[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let consumed = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) {
        docs.push(JSON.parse(text.slice(start, i + 1)));
        consumed = i + 1;
      }
    }
  }
  return { docs, rest: text.slice(consumed) };
}

interface WatchEventDoc {
  type: string;
  object: { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> };
}

describe('kubectl get -w against capstan', () => {
  let capstan: Capstan;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-watch-'));
    capstan = await startCapstan(join(dir, 'data'));
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl get configmaps -w --output-watch-events -o json sees a create, an update and a delete', async () => {
    const kc = capstan.kubeconfig;
    assert.equal((await kubectl(kc, ['create', 'namespace', 'kw'])).code, 0);
    assert.equal((await kubectl(kc, ['create', 'configmap', 'pre', '-n', 'kw', '--from-literal=a=1'])).code, 0);
    const child: ChildProcess = spawn(KUBECTL, ['--kubeconfig', kc, 'get', 'configmaps', '-n', 'kw', '-w', '--output-watch-events', '-o', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const events: WatchEventDoc[] = [];
    let pending = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const { docs, rest } = jsonDocuments(pending + chunk.toString('utf8'));
      pending = rest;
      // kube-root-ca.crt is in every namespace (as in the reference); these tests follow their own objects.
      events.push(...(docs as WatchEventDoc[]).filter((e) => e.object.metadata.name !== 'kube-root-ca.crt'));
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const seen = () => `${events.map((e) => `${e.type} ${e.object.metadata.name}`).join(', ')} / stderr: ${stderr}`;
      await until(seen, () => events.length >= 1);
      const run = async (args: string[]) => {
        const r = await kubectl(kc, args);
        assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      };
      await run(['create', 'configmap', 'live', '-n', 'kw', '--from-literal=a=1']);
      await run(['patch', 'configmap', 'live', '-n', 'kw', '--type', 'merge', '-p', '{"data":{"a":"2"}}']);
      await run(['delete', 'configmap', 'live', '-n', 'kw']);
      await until(seen, () => events.length >= 4);
      await sleep(200);
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED pre', 'ADDED live', 'MODIFIED live', 'DELETED live']);
      assert.deepEqual(events[1]!.object.data, { a: '1' });
      assert.deepEqual(events[2]!.object.data, { a: '2' });
      const rvs = events.slice(1).map((e) => Number(e.object.metadata.resourceVersion));
      assert.ok(rvs[0]! < rvs[1]! && rvs[1]! < rvs[2]!, `versions increase: ${rvs}`);
      assert.equal(child.exitCode, null, `kubectl still watching: ${stderr}`);
    } finally {
      child.kill();
      await exited;
    }
  });
});

type Informer = ReturnType<typeof import('@kubernetes/client-node').makeInformer<V1ConfigMap>>;

/**
 * An informer of one namespace's ConfigMaps as an application runs one: loaded from capstan's
 * kubeconfig, logging "verb name data" for each of its own objects, and on an error restarting
 * itself a little later (the documented pattern) unless paused or stopped.
 */
async function followConfigMaps(kubeconfig: string, namespace: string): Promise<{
  informer: Informer;
  log: string[];
  show: () => string;
  pause: (paused: boolean) => void;
  stop: () => Promise<void>;
}> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  // capstan's kubeconfig as written: HTTPS, its CA, the admin client certificate.
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
  const log: string[] = [];
  const entry = (verb: string) => (obj: V1ConfigMap) => {
    // kube-root-ca.crt is in every namespace (as in the reference); the tests follow their own objects.
    if (obj.metadata?.name !== 'kube-root-ca.crt') log.push(`${verb} ${obj.metadata?.name} ${JSON.stringify(obj.data ?? {})}`);
  };
  informer.on('add', entry('add'));
  informer.on('update', entry('update'));
  informer.on('delete', entry('delete'));
  let stopped = false;
  let paused = false;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  informer.on('error', () => {
    if (stopped || paused) return;
    restarts++;
    clearTimeout(restartTimer);
    restartTimer = setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, 200);
  });
  return {
    informer, log,
    show: () => `${log.join(' | ')} (restarts: ${restarts})`,
    pause: (p) => (paused = p),
    stop: async () => {
      stopped = true;
      clearTimeout(restartTimer);
      await informer.stop();
    },
  };
}

describe('a @kubernetes/client-node informer against capstan', { timeout: 120_000 }, () => {
  let capstan: Capstan;
  let dir: string;
  let port: string;
  let base: string;
  let tls: ReturnType<typeof kubeconfigTls>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-informer-'));
    capstan = await startCapstan(join(dir, 'data'));
    port = new URL(serverOf(capstan.kubeconfig)).port;
    base = serverOf(capstan.kubeconfig);
    tls = kubeconfigTls(capstan.kubeconfig);
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Stops capstan and starts it again on the same data dir and port (extra flags for the new one). */
  const restart = async (extra: string[] = []) => {
    await stopCapstan(capstan);
    capstan = await startCapstan(capstan.dataDir, ['--secure-port', port, ...extra]);
    base = serverOf(capstan.kubeconfig);
    tls = kubeconfigTls(capstan.kubeconfig);
    assert.equal(new URL(base).port, port);
  };
  const writer = (ns: string) => async (method: string, name: string, body?: object) => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const url = method === 'POST' ? path : `${path}/${name}`;
    await mustOk(call(base, method, url, { body, headers: method === 'PATCH' ? MERGE : {}, tls }), method === 'POST' ? 201 : 200);
  };
  const namespaceWith = async (ns: string, first: string) => {
    await mustOk(call(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } }, tls }), 201);
    await writer(ns)('POST', first, { metadata: { name: first }, data: { v: '0' } });
  };
  const names = (informer: Informer, ns: string) => informer.list(ns).map((o) => o.metadata?.name).filter((n) => n !== 'kube-root-ca.crt');

  it('sees add, update and delete of every object in order, and after a restart of capstan resumes and sees every later change', async () => {
    const ns = 'informed';
    await namespaceWith(ns, 'before');
    const write = writer(ns);
    const { informer, log, show, pause, stop } = await followConfigMaps(capstan.kubeconfig, ns);
    try {
      await informer.start();
      await until(show, () => log.length >= 1);
      assert.deepEqual(log, ['add before {"v":"0"}']);

      await write('POST', 'a', { metadata: { name: 'a' }, data: { v: '1' } });
      await write('PATCH', 'a', { data: { v: '2' } });
      await write('POST', 'b', { metadata: { name: 'b' }, data: { v: '1' } });
      await write('DELETE', 'a');
      await write('PATCH', 'b', { data: { v: '2' } });
      await write('PATCH', 'before', { data: { v: '1' } });
      await write('DELETE', 'b');
      await until(show, () => log.length >= 8);
      await sleep(200);
      assert.deepEqual(log.slice(1), [
        'add a {"v":"1"}',
        'update a {"v":"2"}',
        'add b {"v":"1"}',
        'delete a {"v":"2"}',
        'update b {"v":"2"}',
        'update before {"v":"1"}',
        'delete b {"v":"2"}',
      ]);
      assert.deepEqual(names(informer, ns), ['before']);

      // Restart capstan on the same data dir and port. The informer backs off while capstan is
      // down and reconnects only after these writes (as a client with a longer backoff would).
      log.length = 0;
      pause(true);
      await restart();
      await write('POST', 'c', { metadata: { name: 'c' }, data: { v: '1' } });
      await write('PATCH', 'c', { data: { v: '2' } });
      await write('DELETE', 'before');
      await write('DELETE', 'c');
      await write('POST', 'd', { metadata: { name: 'd' }, data: { v: '1' } });
      pause(false);
      await informer.start();
      await until(show, () => log.some((l) => l.startsWith('add d')), 15_000);
      await sleep(200);
      // The informer resumes its watch from the last version it saw (capstan keeps the revision
      // across the restart), so it gets every change made since, in order, and nothing twice.
      assert.deepEqual(log, [
        'add c {"v":"1"}',
        'update c {"v":"2"}',
        'delete before {"v":"1"}',
        'delete c {"v":"2"}',
        'add d {"v":"1"}',
      ], show());
      assert.deepEqual(names(informer, ns), ['d']);
      // And it keeps watching.
      await write('PATCH', 'd', { data: { v: '2' } });
      await until(show, () => log[log.length - 1] === 'update d {"v":"2"}');
    } finally {
      await stop();
    }
  });

  it('left running across a restart (retrying on its own), it reconnects and sees each change made since once, in order', async () => {
    const ns = 'informed-running';
    await namespaceWith(ns, 'kept');
    const write = writer(ns);
    const { informer, log, show, stop } = await followConfigMaps(capstan.kubeconfig, ns);
    try {
      await informer.start();
      await until(show, () => log.length >= 1);
      log.length = 0;
      // The informer retries every 200 ms while capstan is away, and reconnects whenever it is
      // back: before, between or after the writes, it resumes from the last version it saw.
      await restart();
      await write('POST', 'e', { metadata: { name: 'e' }, data: { v: '1' } });
      await write('PATCH', 'kept', { data: { v: '1' } });
      await write('PATCH', 'e', { data: { v: '2' } });
      await write('DELETE', 'kept');
      await until(show, () => log.length >= 4, 15_000);
      await sleep(200);
      assert.deepEqual(log, [
        'add e {"v":"1"}',
        'update kept {"v":"1"}',
        'update e {"v":"2"}',
        'delete kept {"v":"1"}',
      ], show());
      assert.deepEqual(names(informer, ns), ['e']);
    } finally {
      await stop();
    }
  });

  it('relists when capstan can no longer serve its version (history compacted while it was away) and reports the difference', async () => {
    const ns = 'informed-relist';
    await namespaceWith(ns, 'gone');
    const write = writer(ns);
    await write('POST', 'changed', { metadata: { name: 'changed' }, data: { v: '0' } });
    const { informer, log, show, pause, stop } = await followConfigMaps(capstan.kubeconfig, ns);
    try {
      await informer.start();
      await until(show, () => log.length >= 2);
      log.length = 0;
      pause(true);
      // Back with a history of 300 ms: once it has passed, the informer's version is compacted away.
      await restart(['--watch-history-window', '300ms']);
      await write('DELETE', 'gone');
      await write('PATCH', 'changed', { data: { v: '1' } });
      await write('POST', 'new', { metadata: { name: 'new' }, data: { v: '1' } });
      await write('POST', 'brief', { metadata: { name: 'brief' }, data: { v: '1' } });
      await write('DELETE', 'brief');
      await sleep(1000);
      pause(false);
      await informer.start();
      // Its watch answers 410 Expired; it lists again and reports what the list differs in
      // (what came and went while it was away is not seen), then watches from the list.
      await until(show, () => log.length >= 3, 15_000);
      await sleep(200);
      assert.deepEqual(log, ['delete gone {"v":"0"}', 'update changed {"v":"1"}', 'add new {"v":"1"}'], show());
      assert.deepEqual(names(informer, ns).sort(), ['changed', 'new']);
      await write('PATCH', 'new', { data: { v: '2' } });
      await until(show, () => log[log.length - 1] === 'update new {"v":"2"}');
    } finally {
      await stop();
    }
  });
});
