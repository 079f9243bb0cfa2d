// End to end: the real capstan command on a real database file, driven by the real kubectl.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeconfigTls, referenceDir, until } from '../helpers.js';
import { kubectl, ok, startCapstan, stopCapstan, type Capstan } from './harness.js';

const manifests = {
  configmap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e2e-config', namespace: 'e2e', labels: { app: 'e2e' } }, data: { color: 'blue' } },
  deployment: {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'e2e-web', namespace: 'e2e' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } } },
  },
  priorityclass: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'e2e-high' }, value: 1000, description: 'e2e' },
};

describe('kubectl against capstan', () => {
  let capstan: Capstan;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-'));
    capstan = await startCapstan(join(dir, 'data'));
  });
  after(async () => {
    await stopCapstan(capstan);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the system namespaces', async () => {
    const out = await ok(capstan.kubeconfig, ['get', 'ns', '-o', 'json']);
    const names = JSON.parse(out).items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  it('api-resources lists every built-in resource of 1.25, api-versions every group-version', async () => {
    const out = await ok(capstan.kubeconfig, ['api-resources', '--no-headers', '-o', 'name']);
    const names = out.trim().split('\n');
    for (const n of ['pods', 'deployments.apps', 'customresourcedefinitions.apiextensions.k8s.io', 'flowschemas.flowcontrol.apiserver.k8s.io', 'csistoragecapacities.storage.k8s.io', 'leases.coordination.k8s.io', 'horizontalpodautoscalers.autoscaling']) {
      assert.ok(names.includes(n), `${n} missing from api-resources`);
    }
    assert.equal(names.length, 55, names.join(' '));
    const versions = (await ok(capstan.kubeconfig, ['api-versions'])).trim().split('\n');
    assert.ok(versions.includes('autoscaling/v2beta2') && versions.includes('flowcontrol.apiserver.k8s.io/v1beta1') && versions.includes('v1'));
    assert.ok(!versions.some((v) => v.includes('alpha')));
  });

  it('explains pods.spec.containers from the served OpenAPI', async () => {
    const out = await ok(capstan.kubeconfig, ['explain', 'pods.spec.containers']);
    assert.match(out, /KIND:\s+Pod/);
    assert.match(out, /imagePullPolicy/);
  });

  for (const [what, manifest] of Object.entries(manifests)) {
    it(`create, get, replace, patch (merge and json) and delete a ${what}`, async () => {
      const kc = capstan.kubeconfig;
      const file = join(dir, `${what}.json`);
      if ((manifest.metadata as { namespace?: string }).namespace) {
        await kubectl(kc, ['create', 'namespace', 'e2e']);
      }
      writeFileSync(file, JSON.stringify(manifest));
      const created = await ok(kc, ['create', '-f', file]);
      assert.match(created, /created/);
      const resource = `${manifest.kind.toLowerCase()}/${manifest.metadata.name}`;
      const nsArgs = (manifest.metadata as { namespace?: string }).namespace ? ['-n', 'e2e'] : [];
      const got = JSON.parse(await ok(kc, ['get', resource, ...nsArgs, '-o', 'json']));
      assert.equal(got.metadata.name, manifest.metadata.name);
      assert.match(got.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.match(got.metadata.resourceVersion, /^\d+$/);

      // replace: change a label with a full PUT
      const replaced = structuredClone(manifest) as typeof manifest & { metadata: { labels?: Record<string, string> } };
      replaced.metadata.labels = { ...replaced.metadata.labels, replaced: 'yes' };
      writeFileSync(file, JSON.stringify(replaced));
      await ok(kc, ['replace', '-f', file]);
      const afterReplace = JSON.parse(await ok(kc, ['get', resource, ...nsArgs, '-o', 'json']));
      assert.equal(afterReplace.metadata.labels.replaced, 'yes');
      assert.equal(afterReplace.metadata.uid, got.metadata.uid);
      assert.ok(Number(afterReplace.metadata.resourceVersion) > Number(got.metadata.resourceVersion));

      await ok(kc, ['patch', resource, ...nsArgs, '--type', 'merge', '-p', '{"metadata":{"annotations":{"merged":"true"}}}']);
      await ok(kc, ['patch', resource, ...nsArgs, '--type', 'json', '-p', '[{"op":"add","path":"/metadata/labels/jsonpatched","value":"yes"},{"op":"remove","path":"/metadata/labels/replaced"}]']);
      const patched = JSON.parse(await ok(kc, ['get', resource, ...nsArgs, '-o', 'json']));
      assert.equal(patched.metadata.annotations.merged, 'true');
      assert.equal(patched.metadata.labels.jsonpatched, 'yes');
      assert.equal(patched.metadata.labels.replaced, undefined);

      const failed = await kubectl(kc, ['patch', resource, ...nsArgs, '--type', 'json', '-p', '[{"op":"test","path":"/metadata/name","value":"other"}]']);
      assert.notEqual(failed.code, 0);
      assert.match(failed.stderr, /the server rejected our request due to an error in our request/);

      const deleted = await ok(kc, ['delete', resource, ...nsArgs]);
      assert.match(deleted, /deleted/);
      const gone = await kubectl(kc, ['get', resource, ...nsArgs, '-o', 'json']);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound|not found/);
    });
  }

  it('get -o wide prints what it prints against the reference (namespaces)', async () => {
    const f = JSON.parse(readFileSync(join(referenceDir, 'table/kubectl-get-namespaces-wide.json'), 'utf8')) as { response: { body: string } };
    await ok(capstan.kubeconfig, ['create', 'namespace', 'ref-create']);
    const out = await ok(capstan.kubeconfig, ['get', 'namespaces', '--field-selector', 'metadata.name=ref-create', '-o', 'wide']);
    assert.equal(out.replace(/Active {3}\d+[smhd]\S*/, 'Active   <age>'), f.response.body);
  });

  it('get prints server-rendered columns (deployments: READY, UP-TO-DATE, AVAILABLE, AGE)', async () => {
    await ok(capstan.kubeconfig, ['create', 'deployment', 'cols', '--image=nginx:1.25', '--replicas=2']);
    // As with the reference, the deployment controller soon counts the 2 pods of the new ReplicaSet as up to date.
    const [header, row] = await until('UP-TO-DATE 2', async () => {
      const lines = (await ok(capstan.kubeconfig, ['get', 'deployments', 'cols', '-o', 'wide'])).trim().split('\n');
      return lines[1]!.split(/\s+/)[2] === '2' && lines;
    });
    assert.deepEqual(header!.split(/\s{2,}/), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(row!.split(/\s+/).filter((_, i) => i !== 4), ['cols', '0/2', '2', '0', 'nginx', 'nginx:1.25', 'app=cols']);
  });

  it('get prints the reference columns for pods, nodes, events, services and a type without a printer', async () => {
    const kc = capstan.kubeconfig;
    const header = async (args: string[]) => (await ok(kc, ['get', ...args])).split('\n')[0]!.split(/\s{2,}/);
    const manifest = (obj: object) => {
      const file = join(dir, 'obj.json');
      writeFileSync(file, JSON.stringify(obj));
      return file;
    };
    await ok(kc, ['create', '-f', manifest({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })]);
    assert.deepEqual(await header(['pods', '-o', 'wide']), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    assert.match(await ok(kc, ['get', 'pod', 'p1', '--no-headers']), /^p1\s+0\/1\s+Pending\s+0\s+\d+s\n$/);
    await ok(kc, ['create', '-f', manifest({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } })]);
    assert.deepEqual(await header(['nodes', '-o', 'wide']), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    await ok(kc, ['create', '-f', manifest({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p1', namespace: 'default' }, reason: 'Testing', message: 'hello', type: 'Normal', source: { component: 'e2e' } })]);
    assert.deepEqual(await header(['events', '-o', 'wide']), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    await ok(kc, ['create', '-f', manifest({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's1' }, spec: { type: 'ClusterIP', clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80, protocol: 'TCP' }] } })]);
    assert.deepEqual(await header(['services', '-o', 'wide']), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    assert.match(await ok(kc, ['get', 'service', 's1', '--no-headers']), /^s1\s+ClusterIP\s+None\s+<none>\s+80\/TCP\s+\d+s\n$/);
    await ok(kc, ['create', 'clusterrole', 'reader', '--verb=get', '--resource=pods']);
    assert.deepEqual(await header(['clusterroles', 'reader']), ['NAME', 'CREATED AT']);
  });

  it('speaks HTTPS with the written kubeconfig; auth can-i, --list, --as and create token work', async () => {
    const kc = capstan.kubeconfig;
    assert.match(readFileSync(kc, 'utf8'), /server: https:\/\/127\.0\.0\.1:\d+/);
    assert.equal((await ok(kc, ['auth', 'can-i', 'create', 'deployments'])).trim(), 'yes');
    await ok(kc, ['create', 'namespace', 'sec']);
    await ok(kc, ['create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '-n', 'sec']);
    assert.equal((await ok(kc, ['auth', 'can-i', 'list', 'pods', '-n', 'sec', '--as', 'bob'])).trim(), 'yes');
    const no = await kubectl(kc, ['auth', 'can-i', 'create', 'configmaps', '-n', 'sec', '--as', 'bob']);
    assert.equal(no.stdout.trim(), 'no');
    const denied = await kubectl(kc, ['get', 'secrets', '-n', 'sec', '--as', 'bob']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "sec"/);
    const list = await ok(kc, ['auth', 'can-i', '--list', '-n', 'sec', '--as', 'bob']);
    assert.match(list, /pods\s+\[\]\s+\[\]\s+\[get list watch\]/);
    await ok(kc, ['create', 'serviceaccount', 'robot', '-n', 'sec']);
    await ok(kc, ['create', 'rolebinding', 'robot-view', '--clusterrole=view', '--serviceaccount=sec:robot', '-n', 'sec']);
    const token = (await ok(kc, ['create', 'token', 'robot', '-n', 'sec'])).trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    // A kubeconfig with only the token: the service account may read configmaps but not secrets.
    const tokenConfig = join(dir, 'robot.kubeconfig');
    writeFileSync(tokenConfig, readFileSync(kc, 'utf8').replace(/users:\n- name: admin\n {2}user:\n(?: {4}.*\n)+/, `users:\n- name: admin\n  user:\n    token: ${token}\n`));
    const withToken = await kubectl(tokenConfig, ['get', 'configmaps', '-n', 'sec']);
    assert.equal(withToken.code, 0, withToken.stderr);
    const secrets = await kubectl(tokenConfig, ['get', 'secrets', '-n', 'sec']);
    assert.match(secrets.stderr, /User "system:serviceaccount:sec:robot" cannot list resource "secrets"/);
  });

  it('delete namespace waits for its content to go, then the namespace is gone', async () => {
    const kc = capstan.kubeconfig;
    await ok(kc, ['create', 'namespace', 'gone']);
    for (const name of ['a', 'b', 'c']) await ok(kc, ['create', 'configmap', name, '-n', 'gone', '--from-literal=k=v']);
    await ok(kc, ['create', 'deployment', 'd', '--image=nginx', '-n', 'gone']);
    assert.match(await ok(kc, ['delete', 'namespace', 'gone', '--timeout=20s']), /namespace "gone" deleted/);
    const after = await kubectl(kc, ['get', 'namespace', 'gone']);
    assert.match(after.stderr, /NotFound|not found/);
  });

  it('delete --cascade=orphan keeps dependents; --cascade=foreground and background remove them', async () => {
    const kc = capstan.kubeconfig;
    await ok(kc, ['create', 'namespace', 'cascade']);
    const withDependent = async (owner: string) => {
      await ok(kc, ['create', 'configmap', owner, '-n', 'cascade']);
      const uid = JSON.parse(await ok(kc, ['get', 'configmap', owner, '-n', 'cascade', '-o', 'json'])).metadata.uid as string;
      const dep = join(dir, `${owner}-dep.json`);
      writeFileSync(dep, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${owner}-dep`, namespace: 'cascade', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid, blockOwnerDeletion: true }] } }));
      await ok(kc, ['create', '-f', dep]);
    };
    const exists = async (name: string) => (await kubectl(kc, ['get', 'configmap', name, '-n', 'cascade'])).code === 0;
    await withDependent('orphaner');
    await ok(kc, ['delete', 'configmap', 'orphaner', '-n', 'cascade', '--cascade=orphan']);
    await until('orphaner deleted', async () => !(await exists('orphaner')), 20_000, 100);
    assert.ok(await exists('orphaner-dep'));
    const orphan = JSON.parse(await ok(kc, ['get', 'configmap', 'orphaner-dep', '-n', 'cascade', '-o', 'json']));
    assert.equal(orphan.metadata.ownerReferences, undefined);
    for (const mode of ['foreground', 'background']) {
      await withDependent(mode);
      await ok(kc, ['delete', 'configmap', mode, '-n', 'cascade', `--cascade=${mode}`]);
      await until(`${mode} and its dependent deleted`, async () => !(await exists(`${mode}-dep`)) && !(await exists(mode)), 20_000, 100);
    }
  });

  it('answers a body over 3 MiB with the reference\'s 413, which kubectl (HTTP/2) and node:https (HTTP/1.1) both get to read', async () => {
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'too-big', namespace: 'default' }, data: { big: 'x'.repeat(3 * 1024 * 1024 + 1) } });
    const file = join(dir, 'too-big.json');
    writeFileSync(file, big);
    // Reset as soon as answered, the stream lost the answer: "stream error when reading response body".
    for (let i = 0; i < 3; i++) {
      const r = await kubectl(capstan.kubeconfig, ['create', '-f', file]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^Error from server \(RequestEntityTooLarge\): error when creating ".*too-big\.json": Request entity too large: limit is 3145728$/m, r.stderr);
    }
    // Closed at once under the client's writes, the connection was reset and the client saw EPIPE.
    const base = /server: (\S+)/.exec(readFileSync(capstan.kubeconfig, 'utf8'))![1]!;
    const tls = kubeconfigTls(capstan.kubeconfig);
    // On fresh and on kept-alive connections (without the fix, 3 of 8 such tries failed).
    const keptAlive = new HttpsAgent({ keepAlive: true, ...tls });
    for (let i = 0; i < 8; i++) {
      const agent = i % 2 ? keptAlive : false;
      const answer = await new Promise<{ status: number; text: string } | Error>((resolve) => {
        const req = httpsRequest(`${base}/api/v1/namespaces/default/configmaps`, { method: 'POST', agent, ...tls, headers: { 'Content-Type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => { text += d; });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', resolve);
        req.end(big);
      });
      assert.ok(!(answer instanceof Error), `attempt ${i}: ${String(answer)}`);
      assert.equal(answer.status, 413);
      assert.equal(JSON.parse(answer.text).reason, 'RequestEntityTooLarge');
    }
    keptAlive.destroy();
    assert.equal((await kubectl(capstan.kubeconfig, ['get', 'configmap', 'too-big'])).code, 1);
  });

  it('keeps objects and the revision across a restart of the database file', async () => {
    const kc = capstan.kubeconfig;
    await ok(kc, ['create', 'configmap', 'survivor', '--from-literal=k=v']);
    const before = JSON.parse(await ok(kc, ['get', 'configmap', 'survivor', '-o', 'json']));
    await stopCapstan(capstan);
    capstan = await startCapstan(capstan.dataDir);
    const afterRestart = JSON.parse(await ok(capstan.kubeconfig, ['get', 'configmap', 'survivor', '-o', 'json']));
    assert.deepEqual(afterRestart, before);
    await ok(capstan.kubeconfig, ['label', 'configmap', 'survivor', 'again=yes']);
    const relabeled = JSON.parse(await ok(capstan.kubeconfig, ['get', 'configmap', 'survivor', '-o', 'json']));
    assert.ok(Number(relabeled.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
  });
});
