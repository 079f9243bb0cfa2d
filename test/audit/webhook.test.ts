// The audit webhook: a real HTTPS server on loopback, named by a kubeconfig, receives the events
// as audit.k8s.io/v1 EventLists in batches, with the client certificate the kubeconfig gives.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { ensureServingMaterial, type ServingMaterial } from '../../src/server/certs.js';
import { call, memoryServer, until } from '../helpers.js';

interface Received {
  kind: string;
  apiVersion: string;
  items: Array<{ kind: string; auditID: string; stage: string; verb: string; requestURI: string; level: string }>;
  clientCn: string | undefined;
}

describe('audit webhook', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-webhook-'));
  let material: ServingMaterial;
  let webhook: Server;
  const received: Received[] = [];
  let answer = 200;

  before(async () => {
    material = await ensureServingMaterial(join(dir, 'pki'), []);
    webhook = createServer({ key: material.serverKey, cert: material.serverCert, ca: material.caCert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        if (answer === 200) received.push({ ...JSON.parse(Buffer.concat(chunks).toString('utf8')), clientCn: peer?.subject?.CN });
        res.writeHead(answer, { 'Content-Type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    await new Promise((resolve) => webhook.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  function kubeconfig(): string {
    const port = (webhook.address() as AddressInfo).port;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const path = join(dir, 'webhook.kubeconfig');
    writeFileSync(path, `apiVersion: v1
kind: Config
clusters:
- name: audit-sink
  cluster:
    server: https://127.0.0.1:${port}/audit
    certificate-authority-data: ${b64(material.caCert)}
users:
- name: apiserver
  user:
    client-certificate-data: ${b64(material.adminCert)}
    client-key-data: ${b64(material.adminKey)}
contexts:
- name: default
  context: {cluster: audit-sink, user: apiserver}
current-context: default
`);
    return path;
  }

  it('batches of at most --audit-webhook-batch-max-size events, EventLists, over TLS with the client certificate', async () => {
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
    const server = await memoryServer({
      auditPolicyFile: join(dir, 'policy.yaml'), auditWebhookConfigFile: kubeconfig(), auditWebhookBatchMaxSize: 3, auditWebhookBatchMaxWaitMs: 200,
    });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 7; i++) {
        const r = await call(server.url, 'GET', `/api/v1/namespaces/default/configmaps?n=${i}`);
        ids.push(r.headers['audit-id'] as string);
      }
      await until('7 events received', () => received.flatMap((b) => b.items).length >= 7);
    } finally {
      await server.close();
    }
    for (const batch of received) {
      assert.equal(batch.kind, 'EventList');
      assert.equal(batch.apiVersion, 'audit.k8s.io/v1');
      assert.ok(batch.items.length >= 1 && batch.items.length <= 3, `a batch of ${batch.items.length}`);
      assert.equal(batch.clientCn, 'kubernetes-admin');
    }
    const items = received.flatMap((b) => b.items);
    assert.deepEqual(items.map((e) => e.auditID), ids);
    assert.ok(items.every((e) => e.kind === 'Event' && e.stage === 'ResponseComplete' && e.verb === 'list' && e.level === 'Metadata'));
  });

  it('a kubeconfig that names no server stops the start with one line', async () => {
    const bad = join(dir, 'bad.kubeconfig');
    writeFileSync(bad, 'apiVersion: v1\nkind: Config\nclusters:\n- name: x\n  cluster: {}\n');
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    await assert.rejects(memoryServer({ auditPolicyFile: join(dir, 'policy.yaml'), auditWebhookConfigFile: bad }), { message: `--audit-webhook-config-file ${bad}: the cluster has no server URL` });
  });
});
