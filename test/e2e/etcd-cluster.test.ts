// Two capstan commands on a real three-member etcd cluster: the etcd leader killed under writes
// loses no acknowledged write and the servers go on; a capstan server killed leaves the other's
// clients undisturbed, and a watch resumes from its last resourceVersion. Skipped when
// /usr/bin/etcd is absent.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EtcdClient } from '../../src/storage/etcd/client.js';
import { call, kubeconfigTls, mustOk, sleep, until, type ClientTls } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { startCapstan, stopCapstan, type Capstan } from './harness.js';

interface Server {
  capstan: Capstan;
  base: string;
  tls: ClientTls;
}

/** A watch of ConfigMaps in `default` over HTTPS: the names and resourceVersions of the events it reads. */
function watchConfigMaps(s: Server, fromRv: string): { seen: Array<{ type: string; name: string; rv: string }>; stop(): void } {
  const seen: Array<{ type: string; name: string; rv: string }> = [];
  const url = new URL(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${fromRv}&allowWatchBookmarks=false`, s.base);
  let text = '';
  const req = httpsRequest(url, { ...s.tls }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        const e = JSON.parse(text.slice(0, nl)) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
        text = text.slice(nl + 1);
        seen.push({ type: e.type, name: e.object.metadata.name, rv: e.object.metadata.resourceVersion });
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { seen, stop: () => req.destroy() };
}

describe('two capstan servers on a three-member etcd cluster', { skip: etcdMissing, timeout: 240_000 }, () => {
  let members: EtcdProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-cluster-'));
  const servers: Server[] = [];
  let runs = 0;
  const start = async (): Promise<Server> => {
    const capstan = await startCapstan(join(dir, `data-${++runs}`), [
      '--storage', 'etcd', '--etcd-servers', members.map((m) => m.url).join(','), '--etcd-prefix', '/ha', '--cert-dir', join(dir, 'pki'),
    ]);
    const server = { capstan, base: /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'))![1]!, tls: kubeconfigTls(capstan.kubeconfig) };
    servers.push(server);
    return server;
  };
  let a: Server;
  let b: Server;

  before(async () => {
    members = await EtcdProcess.cluster(3);
    a = await start();
    b = await start();
  });
  after(async () => {
    for (const s of servers) await stopCapstan(s.capstan);
    for (const m of members) await m.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged write when the etcd leader is killed under writes, and goes on', async () => {
    const acknowledged: string[] = [];
    const failures: number[] = [];
    let writing = true;
    let n = 0;
    const writer = async (s: Server) => {
      while (writing) {
        const name = `w-${n++}`;
        const r = await call(s.base, 'POST', '/api/v1/namespaces/default/configmaps', { tls: s.tls, body: { metadata: { name }, data: { n: name } } }).catch(() => undefined);
        if (r?.status === 201) acknowledged.push(name);
        else failures.push(r?.status ?? 0);
      }
    };
    const writers = Array.from({ length: 8 }, (_, i) => writer(i % 2 ? a : b));
    await until('writes flowing', () => acknowledged.length >= 50, 20_000, 20);
    // The leader: the member whose status names itself.
    let leader: EtcdProcess | undefined;
    for (const m of members) {
      const client = new EtcdClient({ endpoints: [m.url], requestTimeoutMs: 2_000 });
      try {
        const s = await client.status();
        if (s.leader === s.memberId) leader = m;
      } finally {
        client.close();
      }
    }
    assert.ok(leader, 'a leader');
    const beforeKill = acknowledged.length;
    await leader.stop('SIGKILL');
    await until('writes acknowledged after the leader died', () => acknowledged.length >= beforeKill + 100, 40_000, 50);
    writing = false;
    await Promise.all(writers);
    if (process.env['CAPSTAN_TEST_FIGURES']) console.log(`acknowledged ${acknowledged.length} (${beforeKill} before the kill), failures: ${failures.join(',') || 'none'}`);
    // Only retriable answers, if any: no 4xx, no hang.
    assert.deepEqual(failures.filter((code) => code !== 0 && code < 500), [], `failures: ${failures.join(',')}`);
    for (const s of [a, b]) {
      const listed = await mustOk(call(s.base, 'GET', '/api/v1/namespaces/default/configmaps', { tls: s.tls }));
      const names = new Set(listed.json.items.map((c: { metadata: { name: string } }) => c.metadata.name));
      const lost = acknowledged.filter((name) => !names.has(name));
      assert.deepEqual(lost, [], `acknowledged writes missing on ${s.base}`);
    }
    await leader.start();
  });

  it('keeps the other server\'s clients going when a server dies, and a watch resumes from its last resourceVersion', async () => {
    const list = await mustOk(call(b.base, 'GET', '/api/v1/namespaces/default/configmaps?limit=1', { tls: b.tls }));
    const watch = watchConfigMaps(b, list.json.metadata.resourceVersion);
    a.capstan.process.kill('SIGKILL');
    await mustOk(call(b.base, 'POST', '/api/v1/namespaces/default/configmaps', { tls: b.tls, body: { metadata: { name: 'after-a-died' } } }), 201);
    await until('the watch on the other server goes on', () => watch.seen.some((e) => e.name === 'after-a-died'), 10_000, 20);
    // The watcher goes away; made meanwhile, then seen when it resumes from its last resourceVersion.
    const last = watch.seen.at(-1)!.rv;
    watch.stop();
    await mustOk(call(b.base, 'POST', '/api/v1/namespaces/default/configmaps', { tls: b.tls, body: { metadata: { name: 'while-away' } } }), 201);
    await sleep(200);
    const resumed = watchConfigMaps(b, last);
    try {
      await until('the resumed watch brings what it missed', () => resumed.seen.some((e) => e.name === 'while-away'), 10_000, 20);
      assert.deepEqual(resumed.seen.map((e) => `${e.type} ${e.name}`), ['ADDED while-away']);
    } finally {
      resumed.stop();
    }
  });
});
