// End to end: `kubectl apply --server-side` of the same manifests twice, a second apart — the
// second writes nothing (the resourceVersions stay, no watch hears anything), as on the reference.
import { WORKLOAD_CONTROLLERS } from '../../src/controllers/kit/selection.js';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { kubeconfigTls, sleep, until } from '../helpers.js';
import { collectWatch, REAPPLIED, REAPPLY_NAMESPACE } from '../registry/reapply.js';
import { capstanForSuite, ok } from './harness.js';

describe('kubectl apply --server-side of unchanged manifests', { timeout: 90_000 }, () => {
  // The StatefulSet's controller would write its status and move its resourceVersion.
  const capstan = capstanForSuite(['--controllers', ['*', ...WORKLOAD_CONTROLLERS.map((name) => `-${name}`)].join(',')]);

  it('the second apply stores nothing and sends no watch event', async () => {
    const kc = capstan.current.kubeconfig;
    const file = join(capstan.current.dataDir, '..', 'reapply.yaml');
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: REAPPLY_NAMESPACE } };
    writeFileSync(file, [namespace, ...REAPPLIED.map((r) => r.manifest)].map((m) => stringify(m)).join('---\n'));
    await ok(kc, ['apply', '--server-side', '-f', file]);
    const versions = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const { manifest } of REAPPLIED) {
        // Every kind here is in a named group: kind.group names it to kubectl.
        const args = ['get', `${manifest.kind.toLowerCase()}.${manifest.apiVersion.split('/')[0]}`, manifest.metadata.name, '-o', 'jsonpath={.metadata.resourceVersion}'];
        if (manifest.metadata.namespace) args.push('-n', manifest.metadata.namespace);
        out.push(await ok(kc, args));
      }
      return out;
    };
    const before = await versions();
    const server = /server: (\S+)/.exec(await ok(kc, ['config', 'view', '--raw', '-o', 'jsonpath=server: {.clusters[0].cluster.server}']))![1]!;
    const tls = kubeconfigTls(kc);
    const watches = await Promise.all(REAPPLIED.map(({ collection }, i) => collectWatch(server, `${collection}?watch=true&resourceVersion=${before[i]}`, tls)));
    try {
      await sleep(1100);
      const second = await ok(kc, ['apply', '--server-side', '-f', file]);
      assert.match(second, /horizontalpodautoscaler\.autoscaling\/hpa serverside-applied/);
      assert.deepEqual(await versions(), before, 'no resourceVersion moved');
      await sleep(300);
      assert.deepEqual(watches.map((w) => w.events.length), REAPPLIED.map(() => 0), 'no watch event');
      // The watches are live: a real change is heard.
      await ok(kc, ['label', 'deployment', 'web', '-n', REAPPLY_NAMESPACE, 'changed=yes']);
      const deployments = watches[REAPPLIED.findIndex((r) => r.manifest.kind === 'Deployment')]!;
      await until('the label change', () => deployments.events.length === 1);
      assert.equal(deployments.events[0]!.type, 'MODIFIED');
    } finally {
      for (const w of watches) w.close();
    }
  });
});
