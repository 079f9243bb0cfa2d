// The Service allocators on one etcd shared by two capstan servers, as kube-apiserver keeps them:
// core/v1 RangeAllocation objects at ranges/serviceips and ranges/servicenodeports (Protobuf, the
// bitmap of taken offsets as Go's big.Int bytes), written before each Service, so that servers
// allocating at the same moment never hand out one address or port; a snapshot kube-apiserver left
// is respected; what deleted Services held is free again. Skipped when /usr/bin/etcd is absent.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeProtobufObject } from '../../src/encoding/protobuf-encode.js';
import { decodeRangeBitmap, encodeRangeBitmap } from '../../src/registry/allocators/range-bitmap.js';
import { decodeStored } from '../../src/server/etcd-values.js';
import { EtcdClient } from '../../src/storage/etcd/client.js';
import { call, kubeconfigTls, mustOk, until, type ClientTls } from '../helpers.js';
import { EtcdProcess, etcdMissing } from '../storage/etcd-process.js';
import { startCapstan, stopCapstan, type Capstan } from './harness.js';

const PREFIX = '/ranges-e2e';
const CIDR = '10.0.0.0/24';
const PORTS = '30000-30299';
/** Taken in the snapshot "kube-apiserver" left, held by no Service. */
const LEFT_BY_REFERENCE_IP = '10.0.0.200';
const LEFT_BY_REFERENCE_PORT = 30150;

interface Server {
  capstan: Capstan;
  base: string;
  tls: ClientTls;
}

interface Svc {
  metadata: { name: string };
  spec: { clusterIP: string; ports: { nodePort?: number }[] };
}

const ipOffset = (ip: string): number => Number(ip.split('.')[3]) - 1;

describe('the service allocators of two servers on one etcd', { skip: etcdMissing, timeout: 240_000 }, () => {
  let etcd: EtcdProcess;
  let client: EtcdClient;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-ranges-'));
  const servers: Server[] = [];
  const start = async (n: number): Promise<Server> => {
    const capstan = await startCapstan(join(dir, `data-${n}`), [
      '--storage', 'etcd', '--etcd-servers', etcd.url, '--etcd-prefix', PREFIX, '--cert-dir', join(dir, 'pki'),
      '--service-cluster-ip-range', CIDR, '--service-node-port-range', PORTS,
    ]);
    const server = { capstan, base: /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'))![1]!, tls: kubeconfigTls(capstan.kubeconfig) };
    servers.push(server);
    return server;
  };
  const rangeObject = async (name: string): Promise<Record<string, unknown>> => {
    const kv = (await client.range({ key: Buffer.from(`${PREFIX}/ranges/${name}`) })).kvs[0];
    assert.ok(kv, `${PREFIX}/ranges/${name} in etcd`);
    return decodeStored(kv.value) as Record<string, unknown>;
  };
  const takenIn = async (name: string): Promise<Set<number>> => decodeRangeBitmap(Buffer.from(String((await rangeObject(name))['data'] ?? ''), 'base64'));
  const services = async (s: Server): Promise<Svc[]> => (await mustOk(call(s.base, 'GET', '/api/v1/services', { tls: s.tls }))).json.items;
  const create = (s: Server, name: string, spec: Record<string, unknown> = {}) => call(s.base, 'POST', '/api/v1/namespaces/default/services', {
    tls: s.tls, body: { metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80 }], ...spec } },
  });
  let first: Server;
  let second: Server;

  before(async () => {
    etcd = await EtcdProcess.start();
    client = new EtcdClient({ endpoints: [etcd.url] });
    // What kube-apiserver would have left: both snapshots, each with one allocation no Service holds (yet).
    const put = async (name: string, range: string, offset: number) => client.txn({
      compare: [],
      success: [{ put: {
        key: Buffer.from(`${PREFIX}/ranges/${name}`),
        value: encodeProtobufObject({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range, data: encodeRangeBitmap([offset]).toString('base64') }),
      } }],
      failure: [],
    });
    await put('serviceips', CIDR, ipOffset(LEFT_BY_REFERENCE_IP));
    await put('servicenodeports', PORTS, LEFT_BY_REFERENCE_PORT - 30000);
    first = await start(1);
    second = await start(2);
  });
  after(async () => {
    client?.close();
    for (const s of servers) await stopCapstan(s.capstan);
    await etcd?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hands out distinct addresses and ports when both servers allocate at once, and stores them as the reference does', async () => {
    const each = 100;
    const batch = async (s: Server, tag: string) => {
      for (let i = 0; i < each; i += 10) {
        await Promise.all(Array.from({ length: 10 }, async (_, j) => mustOk(create(s, `${tag}-${i + j}`), 201)));
      }
    };
    await Promise.all([batch(first, 'a'), batch(second, 'b')]);
    const all = await services(first);
    const mine = all.filter((s) => /^[ab]-/.test(s.metadata.name));
    assert.equal(mine.length, 2 * each);
    const ips = all.map((s) => s.spec.clusterIP);
    assert.equal(new Set(ips).size, ips.length, 'every cluster IP distinct');
    const ports = mine.map((s) => s.spec.ports[0]!.nodePort!);
    assert.equal(new Set(ports).size, ports.length, 'every node port distinct');
    assert.ok(!ips.includes(LEFT_BY_REFERENCE_IP), 'the address kube-apiserver\'s snapshot holds is not handed out');
    assert.ok(!ports.includes(LEFT_BY_REFERENCE_PORT), 'nor its port');

    const ipObject = await rangeObject('serviceips');
    assert.equal(ipObject['kind'], 'RangeAllocation');
    assert.equal(ipObject['apiVersion'], 'v1');
    assert.equal(ipObject['range'], CIDR);
    assert.ok('creationTimestamp' in (ipObject['metadata'] as object), 'metadata as Go writes it');
    assert.equal((await rangeObject('servicenodeports'))['range'], PORTS);
    const expectIps = new Set([...ips.map(ipOffset), ipOffset(LEFT_BY_REFERENCE_IP)]);
    assert.deepEqual([...await takenIn('serviceips')].sort((x, y) => x - y), [...expectIps].sort((x, y) => x - y), 'the bitmap holds the Services\' addresses (and the snapshot\'s)');
    const expectPorts = new Set([...ports, LEFT_BY_REFERENCE_PORT].map((p) => p - 30000));
    assert.deepEqual([...await takenIn('servicenodeports')].sort((x, y) => x - y), [...expectPorts].sort((x, y) => x - y));
  });

  it('refuses on either server an address or port the other holds', async () => {
    const held = (await services(first)).find((s) => s.metadata.name === 'a-0')!;
    const byIp = await create(second, 'dup-ip', { clusterIP: held.spec.clusterIP });
    assert.equal(byIp.status, 422, byIp.text);
    assert.match(byIp.json.message, /provided IP is already allocated/);
    const byPort = await create(second, 'dup-port', { ports: [{ port: 80, nodePort: held.spec.ports[0]!.nodePort }] });
    assert.equal(byPort.status, 422, byPort.text);
    assert.match(byPort.json.message, /provided port is already allocated/);
    const left = await create(first, 'left-ip', { clusterIP: LEFT_BY_REFERENCE_IP });
    assert.equal(left.status, 422, 'the snapshot\'s address stays taken');
  });

  it('frees what deleted Services held, for either server to allocate again', async () => {
    const victims = (await services(second)).filter((s) => /^[ab]-[0-4]$/.test(s.metadata.name));
    assert.equal(victims.length, 10);
    // Deleted on the server that did not create half of them.
    for (const v of victims) await mustOk(call(first.base, 'DELETE', `/api/v1/namespaces/default/services/${v.metadata.name}`, { tls: first.tls }));
    const freedIps = victims.map((v) => ipOffset(v.spec.clusterIP));
    const freedPorts = victims.map((v) => v.spec.ports[0]!.nodePort! - 30000);
    const ipBits = await takenIn('serviceips');
    const portBits = await takenIn('servicenodeports');
    assert.ok(freedIps.every((o) => !ipBits.has(o)), 'the addresses are released in the stored bitmap');
    assert.ok(freedPorts.every((o) => !portBits.has(o)), 'the ports too');
    // The other server allocates them again, asked for by number.
    for (const [i, v] of victims.entries()) {
      await until(`${v.metadata.name}'s address is free on the second server`, async () => {
        const again = await create(second, `again-${i}`, { clusterIP: v.spec.clusterIP, ports: [{ port: 80, nodePort: v.spec.ports[0]!.nodePort }] });
        if (again.status === 422) return false;
        assert.equal(again.status, 201, again.text);
        return true;
      }, 10_000, 100);
    }
    const after = await takenIn('serviceips');
    assert.ok(freedIps.every((o) => after.has(o)), 'taken again in the stored bitmap');
  });
});
