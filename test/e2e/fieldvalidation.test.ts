// End to end: kubectl's --validate (sent as fieldValidation) and --dry-run=server against capstan.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubectl, ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

const NS = 'e2e-fv';

function deployment(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } }, ...extra },
  });
}

describe('kubectl --validate and --dry-run=server against capstan', () => {
  let capstan: Capstan;
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, text);
    return path;
  };
  const exists = async (name: string) => (await kubectl(capstan.kubeconfig, ['get', 'deployment', name, '-n', NS])).code === 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-fv-'));
    capstan = await startCapstan(join(dir, 'data'));
    await ok(capstan.kubeconfig, ['create', 'namespace', NS]);
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--validate=strict: an unknown field is refused by the server, nothing is created', async () => {
    const r = await kubectl(capstan.kubeconfig, ['create', '--validate=strict', '-f', file('strict', deployment('strict', { replicaz: 2 }))]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /strict decoding error: unknown field "spec\.replicaz"/);
    assert.equal(await exists('strict'), false);
  });

  it('--validate=warn: the warning is printed on stderr and the object is created without the field', async () => {
    const r = await kubectl(capstan.kubeconfig, ['create', '--validate=warn', '-f', file('warn', deployment('warn', { replicaz: 2 }))]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: unknown field "spec\.replicaz"/);
    const stored = JSON.parse(await ok(capstan.kubeconfig, ['get', 'deployment', 'warn', '-n', NS, '-o', 'json']));
    assert.equal(stored.spec.replicaz, undefined);
  });

  it('--validate=ignore: created silently, the field dropped', async () => {
    const r = await kubectl(capstan.kubeconfig, ['create', '--validate=ignore', '-f', file('ignore', deployment('ignore', { replicaz: 2 }))]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /Warning/);
    const stored = JSON.parse(await ok(capstan.kubeconfig, ['get', 'deployment', 'ignore', '-n', NS, '-o', 'json']));
    assert.equal(stored.spec.replicaz, undefined);
  });

  it('a mistyped field is refused even with --validate=ignore', async () => {
    const r = await kubectl(capstan.kubeconfig, ['create', '--validate=ignore', '-f', file('typed', deployment('typed', { replicas: 'two' }))]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32/);
    assert.equal(await exists('typed'), false);
  });

  it('apply --validate=strict refuses an unknown field in a client-side apply (strategic merge patch)', async () => {
    await ok(capstan.kubeconfig, ['apply', '-f', file('applied', deployment('applied'))]);
    const r = await kubectl(capstan.kubeconfig, ['apply', '--validate=strict', '-f', file('applied2', deployment('applied', { replicaz: 3 }))]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /strict decoding error: unknown field "spec\.replicaz"/);
    const warned = await kubectl(capstan.kubeconfig, ['apply', '--validate=warn', '-f', join(dir, 'applied2.json')]);
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: unknown field "spec\.replicaz"/);
  });

  it('create, apply and delete with --dry-run=server store nothing', async () => {
    const kc = capstan.kubeconfig;
    const created = await ok(kc, ['create', '--dry-run=server', '-f', file('dry', deployment('dry'))]);
    assert.match(created, /deployment\.apps\/dry created \(server dry run\)/);
    assert.equal(await exists('dry'), false);

    const applied = await ok(kc, ['apply', '--dry-run=server', '-f', join(dir, 'dry.json')]);
    assert.match(applied, /deployment\.apps\/dry created \(server dry run\)/);
    assert.equal(await exists('dry'), false);
    const ssa = await ok(kc, ['apply', '--server-side', '--dry-run=server', '-f', join(dir, 'dry.json')]);
    assert.match(ssa, /deployment\.apps\/dry serverside-applied \(server dry run\)/);
    assert.equal(await exists('dry'), false);

    const before = JSON.parse(await ok(kc, ['get', 'deployment', 'warn', '-n', NS, '-o', 'json']));
    const deleted = await ok(kc, ['delete', 'deployment', 'warn', '-n', NS, '--dry-run=server']);
    assert.match(deleted, /deployment\.apps "warn" deleted \(server dry run\)/);
    const still = JSON.parse(await ok(kc, ['get', 'deployment', 'warn', '-n', NS, '-o', 'json']));
    assert.equal(still.metadata.resourceVersion, before.metadata.resourceVersion);
  });
});
