// The "done when", end to end: the real CRDs of cert-manager v1.11, the Prometheus operator
// v0.63 and Argo CD v2.6.7 (test/fixtures/crds) installed with `kubectl apply --server-side` into
// the real capstan command, Established, and custom resources of every kind (the projects'
// documentation examples, test/fixtures/crds/samples) created, listed with the CRDs' printer
// columns, shown as YAML, explained, watched, re-applied without a write (server side with kubectl
// and kubectl 1.27, and client side), used through @kubernetes/client-node, and deleted, the CRDs
// last, until their groups leave discovery.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { type ClientTls, kubeconfigTls, repoRoot, until } from '../helpers.js';
import { capstanForSuite, kubectl } from './harness.js';

const CRD_DIR = join(repoRoot, 'test/fixtures/crds');
const SAMPLE_DIR = join(CRD_DIR, 'samples');
const KUBECTL_1_27 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
const NAMESPACES = ['sandbox', 'monitoring', 'argocd'];
const LIMIT = { timeout: 60_000 };

interface PrinterColumn {
  name: string;
  jsonPath: string;
  priority?: number;
}

interface FixtureCrd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string; kind: string }; versions: Array<{ name: string; storage: boolean; additionalPrinterColumns?: PrinterColumn[] }> };
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}

const crds: FixtureCrd[] = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).sort().map((f) => parse(readFileSync(join(CRD_DIR, f), 'utf8')) as FixtureCrd);
const samples: Manifest[] = readdirSync(SAMPLE_DIR).filter((f) => f.endsWith('.yaml')).sort()
  .flatMap((f) => parseAllDocuments(readFileSync(join(SAMPLE_DIR, f), 'utf8')).map((d) => d.toJS() as Manifest));
const crdOf = (kind: string): FixtureCrd => crds.find((c) => c.spec.names.kind === kind)!;
/** `kubectl get` names of every sample's resource, e.g. certificates.cert-manager.io. */
const sampleResources = [...new Set(samples.map((s) => `${crdOf(s.kind).metadata.name}`))].join(',');

/** True when every field of `want` is in `got` with the same value (the server may add defaults). */
function contains(got: unknown, want: unknown): boolean {
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((w, i) => contains(got[i], w));
  if (want && typeof want === 'object') {
    return !!got && typeof got === 'object' && Object.entries(want).every(([k, v]) => contains((got as Record<string, unknown>)[k], v));
  }
  return got === want;
}

/** The header cells of a kubectl table (columns are at least three spaces apart; names may hold one). */
function header(table: string): string[] {
  return table.split('\n')[0]!.trim().split(/\s{2,}/);
}

/** The names of the watched CRDs, when each was first seen and when it first was Established (ms since the watch began). */
interface EstablishedTimes {
  added: Map<string, number>;
  established: Map<string, number>;
  stop: () => void;
}

/** Watches CRDs over HTTPS (as a controller would), to time how long each takes to be Established. */
function watchCrds(server: string, tls: ClientTls): Promise<EstablishedTimes> {
  const times: EstablishedTimes = { added: new Map(), established: new Map(), stop: () => undefined };
  return new Promise((resolve, reject) => {
    const req = request(new URL('/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1', server), { ...tls, headers: { Accept: 'application/json' } }, (res) => {
      let pending = '';
      res.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (!line.trim()) continue;
          const event = JSON.parse(line) as { object: { metadata: { name: string }; status?: { conditions?: Array<{ type: string; status: string }> } } };
          const name = event.object.metadata.name;
          const at = performance.now();
          if (!times.added.has(name)) times.added.set(name, at);
          if (!times.established.has(name) && event.object.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) times.established.set(name, at);
        }
      });
      res.on('error', () => undefined);
      resolve(times);
    });
    times.stop = () => req.destroy();
    req.on('error', (e) => (times.added.size ? undefined : reject(e)));
    req.end();
  });
}

describe('real-world CRDs: cert-manager, the Prometheus operator and Argo CD', () => {
  const capstan = capstanForSuite();
  let work: string;
  let generation = 0;
  /**
   * kubectl with a discovery cache of its version and the current generation: a new generation
   * (`generation++`) when the CRDs change, so that what kubectl finds is what the server serves now.
   */
  const run = (args: string[], binary?: string) =>
    kubectl(capstan.current.kubeconfig, ['--cache-dir', join(work, `cache-${generation}-${binary ? basename(binary) : 'kubectl'}`), ...args], undefined, binary ? { binary } : {});
  const succeed = async (args: string[], binary?: string): Promise<string> => {
    const r = await run(args, binary);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed (${binary ?? 'kubectl'}): ${r.stderr}`);
    return r.stdout;
  };
  /** Every applying kubectl of this machine: the default one, and 1.27 when installed. */
  const kubectls: Array<string | undefined> = [undefined, ...(existsSync(KUBECTL_1_27) ? [KUBECTL_1_27] : [])];
  /** kind/name → resourceVersion (columns, not -o json: the ten CRDs as JSON outgrow execFile's buffer). */
  const resourceVersions = async (resources: string): Promise<Record<string, string>> => {
    const rows = await succeed(['get', resources, '-A', '--no-headers', '-o', 'custom-columns=KIND:.kind,NAME:.metadata.name,RV:.metadata.resourceVersion']);
    return Object.fromEntries(rows.trim().split('\n').map((row) => row.split(/\s+/)).map(([kind, name, rv]) => [`${kind}/${name}`, rv!]));
  };

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'capstan-real-crds-'));
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('installs the ten CRDs with kubectl apply --server-side, each Established', LIMIT, async (t) => {
    const kc = capstan.current.kubeconfig;
    const server = /server: (\S+)/.exec(readFileSync(kc, 'utf8'))![1]!;
    const watch = await watchCrds(server, kubeconfigTls(kc));
    try {
      const start = performance.now();
      const applied = await succeed(['apply', '--server-side', '-f', CRD_DIR]);
      const appliedIn = performance.now() - start;
      for (const crd of crds) assert.match(applied, new RegExp(`customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} serverside-applied`));
      generation++;
      await succeed(['wait', '--for=condition=Established', '--timeout=20s', ...crds.map((c) => `crd/${c.metadata.name}`)]);
      const waitedIn = performance.now() - start;
      await until('every CRD seen Established by the watch', () => watch.established.size === crds.length, 5_000);
      const each = crds.map((c) => `${c.metadata.name} ${Math.round(watch.established.get(c.metadata.name)! - watch.added.get(c.metadata.name)!)} ms`);
      const slowest = Math.max(...crds.map((c) => watch.established.get(c.metadata.name)! - watch.added.get(c.metadata.name)!));
      t.diagnostic(`apply of 10 CRDs ${Math.round(appliedIn)} ms; all Established (kubectl wait) ${Math.round(waitedIn)} ms; created → Established: ${each.join(', ')}`);
      assert.ok(slowest < 2_000, `each CRD Established within 2 s of its creation (slowest ${Math.round(slowest)} ms)`);
    } finally {
      watch.stop();
    }
    const resources = await succeed(['api-resources']);
    for (const crd of crds) {
      const storage = crd.spec.versions.find((v) => v.storage)!.name;
      assert.match(resources, new RegExp(`^${crd.spec.names.plural}\\s.*\\s${crd.spec.group.replaceAll('.', '\\.')}/${storage}\\s+(true|false)\\s+${crd.spec.names.kind}$`, 'm'));
    }
  });

  it('re-applying the CRDs writes nothing, with either kubectl; client-side apply of the largest is refused as the reference refuses it', LIMIT, async () => {
    const before = await resourceVersions('customresourcedefinitions');
    for (const binary of kubectls) await succeed(['apply', '--server-side', '-f', CRD_DIR], binary);
    assert.deepEqual(await resourceVersions('customresourcedefinitions'), before);
    // The Prometheus CRD's last-applied annotation would exceed 256 KiB: why the operator's
    // documentation says to install with --server-side.
    const clientSide = await run(['apply', '-f', join(CRD_DIR, 'monitoring.coreos.com_prometheuses.yaml')]);
    assert.notEqual(clientSide.code, 0);
    assert.match(clientSide.stderr, /metadata.annotations: Too long: must have at most 262144 bytes/);
    assert.deepEqual(await resourceVersions('customresourcedefinitions'), before);
  });

  it('creates a resource of every kind with kubectl apply --server-side, and lists them with the CRDs\' printer columns', LIMIT, async () => {
    for (const ns of NAMESPACES) await succeed(['create', 'namespace', ns]);
    const applied = await succeed(['apply', '--server-side', '-f', SAMPLE_DIR]);
    for (const s of samples) assert.match(applied, new RegExp(`^${s.kind.toLowerCase()}\\.${crdOf(s.kind).spec.group.replaceAll('.', '\\.')}/${s.metadata.name} serverside-applied$`, 'm'));

    for (const s of samples) {
      const crd = crdOf(s.kind);
      const declared = crd.spec.versions.find((v) => v.storage)!.additionalPrinterColumns;
      const columns = (wide: boolean) => ['NAME', ...(declared ? declared.filter((c) => wide || !c.priority).map((c) => c.name.toUpperCase()) : ['AGE'])];
      const where = s.metadata.namespace ? ['-n', s.metadata.namespace] : [];
      const table = await succeed(['get', crd.spec.names.plural, ...where]);
      assert.deepEqual(header(table), columns(false), `${s.kind} columns:\n${table}`);
      assert.match(table.split('\n')[1]!, new RegExp(`^${s.metadata.name}\\s`));
      assert.deepEqual(header(await succeed(['get', crd.spec.names.plural, ...where, '-o', 'wide'])), columns(true), s.kind);

      const shown = parse(await succeed(['get', crd.spec.names.plural, s.metadata.name, ...where, '-o', 'yaml'])) as Manifest & { metadata: { uid?: string; generation?: number } };
      assert.equal(shown.apiVersion, s.apiVersion);
      assert.equal(shown.kind, s.kind);
      assert.ok(shown.metadata.uid && shown.metadata.generation === 1, `${s.kind} metadata: ${JSON.stringify(shown.metadata)}`);
      assert.ok(contains(shown.spec, s.spec), `${s.kind}: the server's spec holds every field of the manifest: ${JSON.stringify(shown.spec)}`);
    }
    // A row of the sample's values, the status columns empty until a controller reports.
    assert.match(await succeed(['get', 'certificates', '-n', 'sandbox', '-o', 'wide']), /\nexample-com\s+example-com-tls\s+ca-issuer\s+\d+s\n/);
    assert.match(await succeed(['get', 'prometheuses', '-n', 'monitoring']), /\nprometheus\s+v2\.42\.0\s+2\s+\d+s\n/);
  });

  it('shows the conditions a controller reports in the printer columns (JSONPath filters)', LIMIT, async () => {
    const since = '2023-03-01T00:00:00Z';
    await succeed(['patch', 'certificate', 'example-com', '-n', 'sandbox', '--subresource=status', '--type=merge', '-p',
      JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: 'Certificate is up to date and has not expired', lastTransitionTime: since }] } })]);
    assert.match(await succeed(['get', 'certificates', '-n', 'sandbox', '-o', 'wide']), /\nexample-com\s+True\s+example-com-tls\s+ca-issuer\s+Certificate is up to date and has not expired\s+\d+s\n/);
    await succeed(['patch', 'prometheus', 'prometheus', '-n', 'monitoring', '--subresource=status', '--type=merge', '-p',
      JSON.stringify({ status: { availableReplicas: 2, paused: false, replicas: 2, updatedReplicas: 2, unavailableReplicas: 0, conditions: [{ type: 'Available', status: 'True', lastTransitionTime: since }, { type: 'Reconciled', status: 'False', lastTransitionTime: since }] } })]);
    assert.match(await succeed(['get', 'prometheuses', '-n', 'monitoring', '-o', 'wide']), /\nprometheus\s+v2\.42\.0\s+2\s+2\s+False\s+True\s+\d+s\s+false\n/);
  });

  it('explains the custom resources from their schemas, with kubectl and kubectl 1.27', LIMIT, async () => {
    for (const binary of kubectls) {
      const spec = await succeed(['explain', 'certificate.spec'], binary);
      assert.match(spec, /KIND:\s+Certificate/);
      assert.match(spec, /Desired state of the Certificate resource\./);
      assert.match(spec, /dnsNames\t<\[\]string>\n\s+DNSNames is a list of DNS subjectAltNames to be set on the Certificate\./);
      assert.match(spec, /issuerRef\t<Object> -required-/);
      const retention = await succeed(['explain', 'prometheus.spec.retention'], binary);
      assert.match(retention, /FIELD:\s+retention <string>/);
      assert.match(retention, /Time duration Prometheus shall retain data for\. Default is '24h' if\s+retentionSize is not set/);
    }
  });

  it('kubectl get --watch sees a label put on a Certificate', LIMIT, async () => {
    const child: ChildProcess = spawn(process.env['KUBECTL'] ?? 'kubectl', ['--kubeconfig', capstan.current.kubeconfig, '--cache-dir', join(work, 'cache-watch'), 'get', 'certificates', '-n', 'sandbox', '--watch', '-o', 'custom-columns=NAME:.metadata.name,RELEASE:.metadata.labels.release'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    try {
      await until(() => `the first row: ${out} ${err}`, () => /example-com\s+<none>\n/.test(out), 15_000);
      await succeed(['label', 'certificate', 'example-com', '-n', 'sandbox', 'release=canary']);
      await until(() => `the labelled row: ${out} ${err}`, () => /example-com\s+canary\n/.test(out), 10_000);
    } finally {
      child.kill();
    }
    // The label is a write of ours: undo it so the manifests match the objects again.
    await succeed(['label', 'certificate', 'example-com', '-n', 'sandbox', 'release-']);
  });

  it('re-applying the manifests writes nothing: server side with either kubectl, then client side', LIMIT, async () => {
    const created = await resourceVersions(sampleResources);
    assert.equal(Object.keys(created).length, samples.length);
    for (const binary of kubectls) {
      const out = await succeed(['apply', '--server-side', '-f', SAMPLE_DIR], binary);
      assert.equal(out.match(/serverside-applied/g)?.length, samples.length);
      assert.deepEqual(await resourceVersions(sampleResources), created, `server-side apply with ${binary ?? 'kubectl'} wrote`);
    }
    // The first client-side apply adds kubectl's last-applied annotation (a write); after it, none.
    await succeed(['apply', '-f', SAMPLE_DIR]);
    const annotated = await resourceVersions(sampleResources);
    for (const binary of kubectls) {
      await succeed(['apply', '-f', SAMPLE_DIR], binary);
      assert.deepEqual(await resourceVersions(sampleResources), annotated, `client-side apply with ${binary ?? 'kubectl'} wrote`);
    }
  });

  it('@kubernetes/client-node CustomObjectsApi creates, lists, gets, patches and deletes a ServiceMonitor', LIMIT, async () => {
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(capstan.current.kubeconfig);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const at = { group: 'monitoring.coreos.com', version: 'v1', namespace: 'monitoring', plural: 'servicemonitors' };
    const body = {
      apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor',
      metadata: { name: 'api-server', labels: { team: 'backend' } },
      spec: { selector: { matchLabels: { app: 'api-server' } }, endpoints: [{ port: 'metrics', interval: '15s', scheme: 'https' }] },
    };
    type ServiceMonitor = typeof body & { metadata: { resourceVersion: string; uid: string } };
    const created = (await api.createNamespacedCustomObject({ ...at, body })) as ServiceMonitor;
    assert.ok(created.metadata.uid);
    assert.deepEqual(created.spec.endpoints, body.spec.endpoints);

    const list = (await api.listNamespacedCustomObject({ ...at, labelSelector: 'team=backend' })) as { kind: string; items: ServiceMonitor[] };
    assert.equal(list.kind, 'ServiceMonitorList');
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['api-server']);

    const got = (await api.getNamespacedCustomObject({ ...at, name: 'api-server' })) as ServiceMonitor;
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);

    const patched = (await api.patchNamespacedCustomObject({ ...at, name: 'api-server', body: { spec: { endpoints: [{ port: 'metrics', interval: '30s' }] } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))) as ServiceMonitor;
    assert.deepEqual(patched.spec.endpoints, [{ port: 'metrics', interval: '30s' }]);
    assert.notEqual(patched.metadata.resourceVersion, created.metadata.resourceVersion);

    // An invalid value is refused with the schema's message (interval is a Prometheus duration by pattern).
    await assert.rejects(
      api.patchNamespacedCustomObject({ ...at, name: 'api-server', body: { spec: { endpoints: [{ port: 'metrics', interval: 'soon' }] } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)),
      (e: { code?: number; body?: unknown }) => e.code === 422 && /spec\.endpoints\[0\]\.interval: Invalid value: \\?"soon\\?": spec\.endpoints\[0\]\.interval in body should match '\^\(0\|/.test(String(e.body)),
    );

    await api.deleteNamespacedCustomObject({ ...at, name: 'api-server' });
    await assert.rejects(api.getNamespacedCustomObject({ ...at, name: 'api-server' }), (e: { code?: number }) => e.code === 404);
  });

  it('kubectl delete -f deletes the resources, then the CRDs, and their groups leave discovery', LIMIT, async () => {
    const deleted = await succeed(['delete', '-f', SAMPLE_DIR]);
    assert.equal(deleted.match(/ deleted$/gm)?.length, samples.length);
    for (const ns of NAMESPACES) {
      const left = await run(['get', sampleResources, '-n', ns]);
      assert.equal(left.code, 0, left.stderr);
      assert.equal(left.stdout, '');
      assert.match(left.stderr, /No resources found/);
    }
    const gone = await succeed(['delete', '-f', CRD_DIR]);
    generation++;
    assert.equal(gone.match(/customresourcedefinition.apiextensions.k8s.io "[^"]+" deleted$/gm)?.length, crds.length);
    const listed = await run(['get', 'customresourcedefinitions']);
    assert.equal(listed.stdout, '');
    assert.match(listed.stderr, /No resources found/);
    const groups = /argoproj\.io|cert-manager\.io|monitoring\.coreos\.com/;
    assert.doesNotMatch(await succeed(['api-resources']), groups);
    assert.doesNotMatch(await succeed(['api-versions']), groups);
    const kinds = await run(['get', 'certificates']);
    assert.notEqual(kinds.code, 0);
    assert.match(kinds.stderr, /the server doesn't have a resource type "certificates"/);
  });
});
