// --runtime-config as kube-apiserver 1.25 reads it: the stability keys, then group/version, then
// group/version/resource; its errors; and a server that serves (discovery, OpenAPI, requests) what
// the flag leaves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runtimeConfig } from '../../src/api/runtime-config.js';
import { parseOptions } from '../../src/cmd/options.js';
import { call, memoryServer } from '../helpers.js';

describe('--runtime-config', { timeout: 30_000 }, () => {
  it('reads the stability keys, versions and resources in the reference order', () => {
    const none = runtimeConfig([]).enabled;
    assert.equal(none('batch', 'v1'), true);
    assert.equal(none('networking.k8s.io', 'v1alpha1'), false);
    const alpha = runtimeConfig(['api/alpha=true']).enabled;
    assert.equal(alpha('networking.k8s.io', 'v1alpha1'), true);
    // api/all first, then the stability keys, then versions, then resources.
    const mixed = runtimeConfig(['api/all=false', 'api/ga', 'batch/v1=false', 'batch/v1/jobs=true', 'v1=true']).enabled;
    assert.equal(mixed('apps', 'v1'), true);
    assert.equal(mixed('storage.k8s.io', 'v1beta1'), false);
    assert.equal(mixed('batch', 'v1'), false);
    assert.equal(mixed('batch', 'v1', 'cronjobs'), false);
    assert.equal(mixed('batch', 'v1', 'jobs'), true);
    assert.equal(mixed('', 'v1'), true);
    // Go's booleans; a group the reference does not have is ignored.
    assert.equal(runtimeConfig(['apps/v1=F']).enabled('apps', 'v1'), false);
    assert.equal(runtimeConfig(['nope.example.com/v1=false']).enabled('apps', 'v1'), true);
  });

  it('refuses a bad value or an unknown version of a known group with the reference words, naming the flag', () => {
    assert.throws(() => parseOptions(['--runtime-config', 'batch/v1=maybe']), /^Error: --runtime-config: invalid value batch\/v1=maybe$/);
    assert.throws(() => parseOptions(['--runtime-config', 'batch/v9=true']), /--runtime-config: group version batch\/v9 that has not been registered/);
    assert.throws(() => parseOptions(['--runtime-config', 'a/b/c/d']), /--runtime-config: invalid key a\/b\/c\/d/);
    // Repeated flags add up, as pflag's map flags do.
    assert.deepEqual(parseOptions(['--runtime-config', 'api/alpha=true', '--runtime-config=batch/v1=false']).options.runtimeConfig, ['api/alpha=true', 'batch/v1=false']);
  });

  it('serves what it leaves: discovery, OpenAPI and requests follow', async () => {
    const server = await memoryServer({ runtimeConfig: ['batch/v1=false', 'apps/v1/daemonsets=false', 'networking.k8s.io/v1alpha1=true'] });
    try {
      const groups = (await call(server.url, 'GET', '/apis')).json.groups as Array<{ name: string; versions: Array<{ version: string }> }>;
      assert.ok(!groups.some((g) => g.name === 'batch'));
      assert.deepEqual(groups.find((g) => g.name === 'networking.k8s.io')!.versions.map((v) => v.version), ['v1', 'v1alpha1']);
      const apps = ((await call(server.url, 'GET', '/apis/apps/v1')).json.resources as Array<{ name: string }>).map((r) => r.name);
      assert.ok(apps.includes('deployments') && !apps.includes('daemonsets'));
      assert.equal((await call(server.url, 'GET', '/apis/apps/v1/daemonsets')).json.reason, 'NotFound');
      assert.equal((await call(server.url, 'GET', '/apis/batch/v1/jobs')).status, 404);
      assert.equal((await call(server.url, 'GET', '/apis/networking.k8s.io/v1alpha1/clustercidrs')).status, 200);
      const v2 = (await call(server.url, 'GET', '/openapi/v2')).json as { paths: Record<string, unknown> };
      assert.ok(!Object.keys(v2.paths).some((p) => p.startsWith('/apis/batch/v1/') || p.includes('/daemonsets')));
      assert.ok(Object.keys(v2.paths).some((p) => p.startsWith('/apis/networking.k8s.io/v1alpha1/')));
      const v3 = (await call(server.url, 'GET', '/openapi/v3')).json as { paths: Record<string, unknown> };
      assert.ok(!('apis/batch/v1' in v3.paths) && 'apis/networking.k8s.io/v1alpha1' in v3.paths);
    } finally {
      await server.close();
    }
  });
});
