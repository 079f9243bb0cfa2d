// The kubectl matrix: kubectl 1.27 (reads /openapi/v2 as gnostic Protobuf), 1.30 and 1.33 (read
// /openapi/v3, falling back to v2 for a group-version missing there) through everything that reads
// the OpenAPI documents: apply (client and server side), create -f, replace, edit, diff and explain,
// against the real capstan. The versioned binaries are those of these machines (and CI's); a missing
// one is skipped, saying so.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { capstanForSuite, kubectl } from './harness.js';

const BIN_DIR = '/usr/lib/google-cloud-sdk/bin';
const VERSIONS = ['1.27', '1.30', '1.33'];
const LIMIT = { timeout: 90_000 };

const yaml = (...docs: string[]) => docs.map((d) => d.trim()).join('\n---\n') + '\n';

function configMap(ns: string, color: string): string {
  return `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data:
  color: ${color}
`;
}

function deployment(ns: string, image: string, replicas: number): string {
  return `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
`;
}

/** metrics-server's APIService: apiregistration.k8s.io/v1 has no vendored v3 document. */
function apiService(version: string, priority: number): string {
  return `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: ${version}.metrics-${priority}.example.com
spec:
  group: metrics-${priority}.example.com
  version: ${version}
  groupPriorityMinimum: 100
  versionPriority: ${priority}
  insecureSkipTLSVerify: true
  service: {name: metrics-server, namespace: kube-system}
`;
}

describe('the kubectl matrix', () => {
  const capstan = capstanForSuite();

  for (const version of VERSIONS) {
    const binary = join(BIN_DIR, `kubectl.${version}`);
    const missing = existsSync(binary) ? false : `kubectl ${version} is not installed at ${binary}`;
    const ns = `matrix-${version.replace('.', '-')}`;

    describe(`kubectl ${version}`, { skip: missing }, () => {
      let work: string;
      /** This version's kubectl, with a cache of its own (versions must not share what they cached). */
      const run = (args: string[], env: Record<string, string> = {}) => kubectl(capstan.current.kubeconfig, ['--cache-dir', join(work, 'cache'), ...args], undefined, { binary, env });
      const succeed = async (args: string[], env?: Record<string, string>) => {
        const r = await run(args, env);
        assert.equal(r.code, 0, `kubectl ${version} ${args.join(' ')} failed: ${r.stderr}`);
        return r.stdout;
      };
      const file = (name: string, text: string) => {
        const path = join(work, name);
        writeFileSync(path, text);
        return path;
      };
      const getJson = async (...what: string[]) => JSON.parse(await succeed(['get', ...what, '-o', 'json', '--show-managed-fields'])) as { metadata: { annotations?: Record<string, string>; managedFields?: Array<{ manager: string; operation: string }>; resourceVersion: string }; data?: Record<string, string>; spec?: Record<string, unknown> };

      before(async () => {
        work = mkdtempSync(join(tmpdir(), `capstan-${ns}-`));
        await succeed(['create', 'namespace', ns]);
      });
      after(() => rmSync(work, { recursive: true, force: true }));

      it('create -f makes the objects of a manifest, and refuses them a second time', LIMIT, async () => {
        const manifest = file('create.yaml', yaml(configMap(ns, 'blue'), apiService('v1alpha1', Number(version.slice(2)))));
        const created = await succeed(['create', '-f', manifest]);
        assert.match(created, /^configmap\/settings created$/m);
        assert.match(created, /^apiservice\.apiregistration\.k8s\.io\/v1alpha1\.metrics-\d+\.example\.com created$/m);
        assert.equal((await getJson('configmap', 'settings', '-n', ns)).data?.['color'], 'blue');
        const again = await run(['create', '-f', manifest]);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /AlreadyExists|already exists/);
      });

      it('replace -f puts the manifest in place of the object', LIMIT, async () => {
        const before = await getJson('configmap', 'settings', '-n', ns);
        assert.match(await succeed(['replace', '-f', file('replace.yaml', configMap(ns, 'green'))]), /^configmap\/settings replaced$/m);
        const after = await getJson('configmap', 'settings', '-n', ns);
        assert.equal(after.data?.['color'], 'green');
        assert.notEqual(after.metadata.resourceVersion, before.metadata.resourceVersion);
      });

      it('edit through $EDITOR changes the object', LIMIT, async () => {
        const editor = file('editor.sh', '#!/bin/sh\nsed -i "s/color: green/color: purple/" "$1"\n');
        chmodSync(editor, 0o755);
        const out = await succeed(['edit', 'configmap', 'settings', '-n', ns], { EDITOR: editor, KUBE_EDITOR: editor });
        assert.match(out, /^configmap\/settings edited$/m);
        const edited = await getJson('configmap', 'settings', '-n', ns);
        assert.equal(edited.data?.['color'], 'purple');
        assert.ok(edited.metadata.managedFields?.some((m) => m.manager === 'kubectl-edit'));
      });

      it('client-side apply creates, records the last applied manifest, then merges a change', LIMIT, async () => {
        const first = await succeed(['apply', '-f', file('apply-1.yaml', yaml(deployment(ns, 'nginx:1.25', 2), apiService('v1beta1', Number(version.slice(2)))))]);
        assert.match(first, /^deployment\.apps\/web created$/m);
        assert.match(first, /^apiservice\.apiregistration\.k8s\.io\/v1beta1\.metrics-\d+\.example\.com created$/m);
        const created = await getJson('deployment', 'web', '-n', ns);
        assert.match(created.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '', /"image":"nginx:1\.25"/);

        const second = await succeed(['apply', '-f', file('apply-2.yaml', deployment(ns, 'nginx:1.26', 3))]);
        assert.match(second, /^deployment\.apps\/web configured$/m);
        const changed = (await getJson('deployment', 'web', '-n', ns)).spec as { replicas: number; template: { spec: { containers: Array<{ name: string; image: string; ports: unknown[] }> } } };
        assert.equal(changed.replicas, 3);
        assert.deepEqual(changed.template.spec.containers.map((c) => [c.name, c.image, c.ports.length]), [['web', 'nginx:1.26', 1]]);
        assert.match(await succeed(['apply', '-f', join(work, 'apply-2.yaml')]), /^deployment\.apps\/web unchanged$/m);
      });

      it('server-side apply: a second manager conflicts, --force-conflicts takes the field', LIMIT, async () => {
        const mine = file('ssa-1.yaml', configMap(ns, 'orange').replace('name: settings', 'name: shared'));
        assert.match(await succeed(['apply', '--server-side', '--field-manager=first', '-f', mine]), /^configmap\/shared serverside-applied$/m);
        const theirs = file('ssa-2.yaml', configMap(ns, 'teal').replace('name: settings', 'name: shared'));
        const conflict = await run(['apply', '--server-side', '--field-manager=second', '-f', theirs]);
        assert.equal(conflict.code, 1);
        assert.match(conflict.stderr, /conflict with "first"/);
        assert.match(await succeed(['apply', '--server-side', '--field-manager=second', '--force-conflicts', '-f', theirs]), /^configmap\/shared serverside-applied$/m);
        const taken = await getJson('configmap', 'shared', '-n', ns);
        assert.equal(taken.data?.['color'], 'teal');
        assert.ok(taken.metadata.managedFields?.some((m) => m.manager === 'second' && m.operation === 'Apply'));
      });

      it('diff shows what applying a manifest would change, and nothing for the same manifest', LIMIT, async () => {
        const same = await run(['diff', '-f', join(work, 'apply-2.yaml')]);
        assert.equal(same.code, 0, same.stderr);
        assert.equal(same.stdout, '');
        const changed = await run(['diff', '-f', file('diff.yaml', deployment(ns, 'nginx:1.27', 5))]);
        assert.equal(changed.code, 1, changed.stderr);
        assert.match(changed.stdout, /^-\s+replicas: 3$/m);
        assert.match(changed.stdout, /^\+\s+replicas: 5$/m);
        assert.match(changed.stdout, /^\+\s+- image: nginx:1\.27$/m);
        assert.equal(((await getJson('deployment', 'web', '-n', ns)).spec as { replicas: number }).replicas, 3, 'diff changes nothing');
      });

      it('explain describes built-in fields, apiregistration.k8s.io included', LIMIT, async () => {
        const strategy = await succeed(['explain', 'deployments.spec.strategy']);
        assert.match(strategy, /KIND:\s+Deployment/);
        assert.match(strategy, /rollingUpdate/);
        const service = await succeed(['explain', 'apiservices.spec.service']);
        assert.match(service, /KIND:\s+APIService/);
        assert.match(service, /namespace/);
      });
    });
  }
});
