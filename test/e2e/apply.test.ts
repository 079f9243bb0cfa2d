// End to end: kubectl's apply family against capstan — client-side apply with pruning, server-side
// apply with conflicts and --force-conflicts, edit, label, annotate, scale, set image, diff, dry-run.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

function deployment(image: string, replicas: number, sidecar: boolean): object {
  const containers: object[] = [{ name: 'nginx', image }];
  if (sidecar) containers.push({ name: 'sidecar', image: 'busybox:1.36' });
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers } } },
  };
}

interface Deployment {
  metadata: { generation: number; labels: Record<string, string>; annotations?: Record<string, string>; managedFields: Array<{ manager: string; operation: string; subresource?: string }> };
  spec: { replicas: number; template: { spec: { containers: Array<{ name: string; image: string }> } } };
}

describe('kubectl apply family against capstan', () => {
  let capstan: Capstan;
  let dir: string;
  let kc: string;
  const get = async (): Promise<Deployment> => JSON.parse(await ok(kc, ['get', 'deployment', 'web', '-o', 'json', '--show-managed-fields'])) as Deployment;
  const write = (name: string, obj: object): string => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(obj));
    return file;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-apply-'));
    capstan = await startCapstan(join(dir, 'data'));
    kc = capstan.kubeconfig;
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('client-side apply creates, records last-applied, then updates and prunes a removed container', async () => {
    assert.match(await ok(kc, ['apply', '-f', write('d1.json', deployment('nginx:1.25', 2, true))]), /created/);
    let d = await get();
    assert.ok(d.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']?.includes('sidecar'));
    // The deployment controller's status write (subresource status) may be there too, as with the reference.
    assert.deepEqual(d.metadata.managedFields.filter((m) => m.subresource !== 'status').map((m) => `${m.manager}/${m.operation}`), ['kubectl-client-side-apply/Update']);
    assert.match(await ok(kc, ['apply', '-f', write('d2.json', deployment('nginx:1.26', 2, false))]), /configured/);
    d = await get();
    assert.deepEqual(d.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`), ['nginx=nginx:1.26']);
    assert.equal(d.metadata.generation, 2);
    assert.match(await ok(kc, ['apply', '-f', write('d2.json', deployment('nginx:1.26', 2, false))]), /unchanged/);
  });

  it('label, annotate, scale and set image each record their own manager', async () => {
    await ok(kc, ['label', 'deployment', 'web', 'tier=web']);
    await ok(kc, ['annotate', 'deployment', 'web', 'note=hello']);
    assert.match(await ok(kc, ['scale', 'deployment', 'web', '--replicas=3']), /scaled/);
    await ok(kc, ['set', 'image', 'deployment/web', 'nginx=nginx:1.27']);
    const d = await get();
    assert.equal(d.metadata.labels['tier'], 'web');
    assert.equal(d.metadata.annotations?.['note'], 'hello');
    assert.equal(d.spec.replicas, 3);
    assert.equal(d.spec.template.spec.containers[0]!.image, 'nginx:1.27');
    const managers = d.metadata.managedFields.map((m) => `${m.manager}/${m.operation}${m.subresource ? `/${m.subresource}` : ''}`);
    for (const m of ['kubectl-label/Update', 'kubectl-annotate/Update', 'kubectl/Update/scale', 'kubectl-set/Update']) assert.ok(managers.includes(m), `${m} in ${managers.join(', ')}`);
  });

  it('server-side apply by a second manager conflicts, and --force-conflicts takes the field', async () => {
    const other = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } } };
    const conflict = await kubectl(kc, ['apply', '--server-side', '--field-manager=other', '-f', write('other.json', other)]);
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl-set"/);
    assert.match(conflict.stderr, /--force-conflicts/);
    assert.equal((await get()).spec.template.spec.containers[0]!.image, 'nginx:1.27');
    await ok(kc, ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', write('other.json', other)]);
    const d = await get();
    assert.equal(d.spec.template.spec.containers[0]!.image, 'nginx:1.28');
    assert.ok(d.metadata.managedFields.some((m) => m.manager === 'other' && m.operation === 'Apply'));
  });

  it('edit through $EDITOR changes the object', async () => {
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/replicas: [0-9]*/replicas: 6/" "$1"\n');
    chmodSync(editor, 0o755);
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      import('node:child_process').then(({ execFile }) => {
        execFile(process.env['KUBECTL'] ?? 'kubectl', ['--kubeconfig', kc, 'edit', 'deployment', 'web'], { env: { ...process.env, EDITOR: editor, KUBE_EDITOR: editor } }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr }));
      });
    });
    assert.equal(r.code, 0, r.out);
    assert.equal((await get()).spec.replicas, 6);
    assert.ok((await get()).metadata.managedFields.some((m) => m.manager === 'kubectl-edit'));
  });

  it('diff shows the change a manifest would make, and --dry-run=server stores nothing', async () => {
    const file = write('d3.json', deployment('nginx:1.26', 9, false));
    const diff = await kubectl(kc, ['diff', '-f', file]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /-\s+replicas: 6\n\+\s+replicas: 9/);
    const before = await get();
    await ok(kc, ['apply', '-f', file, '--dry-run=server']);
    await ok(kc, ['create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server']);
    assert.deepEqual(await get(), before);
    const missing = await kubectl(kc, ['get', 'configmap', 'dry']);
    assert.notEqual(missing.code, 0);
  });
});
