// `capstan convert`: manifests of removed versions converted offline to the versions that replaced
// them (then accepted by a real server as they are), and between served versions; its errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { call, memoryServer, repoRoot } from '../helpers.js';

const run = promisify(execFile);
const CAPSTAN = join(repoRoot, 'dist/src/cmd/capstan.js');

function convert(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CAPSTAN, 'convert', ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

const OLD = `apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: web, namespace: default}
spec:
  backend: {serviceName: fallback, servicePort: 80}
  rules:
  - host: example.com
    http:
      paths:
      - path: /api
        backend: {serviceName: api, servicePort: http}
---
apiVersion: apps/v1beta2
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
---
apiVersion: extensions/v1beta1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  templateGeneration: 3
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: busybox}]
---
apiVersion: batch/v1beta1
kind: CronJob
metadata: {name: nightly, namespace: default}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: job, image: busybox}]
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: autoscaling/v2beta1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, targetAverageUtilization: 70}
  - type: Pods
    pods: {metricName: qps, targetAverageValue: "10"}
---
apiVersion: discovery.k8s.io/v1beta1
kind: EndpointSlice
metadata: {name: web-1, namespace: default}
addressType: IPv4
endpoints:
- addresses: [10.0.0.1]
  nodeName: node-a
  topology: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1, rack: r7}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: gadgets.old.example.com}
spec:
  group: old.example.com
  version: v1
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec: {type: object, properties: {size: {type: integer}}}
  additionalPrinterColumns:
  - {name: Size, type: integer, JSONPath: .spec.size}
`;

describe('capstan convert', { timeout: 60_000 }, () => {
  it('moves removed versions to their replacements, which a server then accepts', async () => {
    const r = await convert(['-f', '-'], OLD);
    assert.equal(r.code, 0, r.stderr);
    const list = parse(r.stdout) as { kind: string; items: Array<Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
    assert.equal(list.kind, 'List');
    assert.deepEqual(list.items.map((i) => `${i['apiVersion']}/${i['kind']}`), [
      'networking.k8s.io/v1/Ingress', 'apps/v1/Deployment', 'apps/v1/DaemonSet', 'batch/v1/CronJob', 'policy/v1/PodDisruptionBudget',
      'autoscaling/v2/HorizontalPodAutoscaler', 'discovery.k8s.io/v1/EndpointSlice', 'apiextensions.k8s.io/v1/CustomResourceDefinition',
    ]);
    const [ingress, deployment, daemonSet, , , hpa, slice, crd] = list.items;
    assert.deepEqual(ingress!['spec'].defaultBackend, { service: { name: 'fallback', port: { number: 80 } } });
    assert.deepEqual(ingress!['spec'].rules[0].http.paths[0], { backend: { service: { name: 'api', port: { name: 'http' } } }, path: '/api', pathType: 'ImplementationSpecific' });
    assert.deepEqual(deployment!['spec'].selector, { matchLabels: { app: 'web' } });
    assert.equal(daemonSet!['spec'].templateGeneration, undefined);
    assert.deepEqual(hpa!['spec'].metrics, [
      { resource: { name: 'cpu', target: { averageUtilization: 70, type: 'Utilization' } }, type: 'Resource' },
      { pods: { metric: { name: 'qps' }, target: { averageValue: '10', type: 'AverageValue' } }, type: 'Pods' },
    ]);
    assert.deepEqual(slice!['endpoints'][0], { addresses: ['10.0.0.1'], deprecatedTopology: { rack: 'r7' }, nodeName: 'node-a', zone: 'z1' });
    assert.deepEqual(crd!['spec'].versions, [{
      additionalPrinterColumns: [{ jsonPath: '.spec.size', name: 'Size', type: 'integer' }], name: 'v1',
      schema: { openAPIV3Schema: { properties: { spec: { properties: { size: { type: 'integer' } }, type: 'object' } }, type: 'object' } }, served: true, storage: true,
    }]);
    // Each converted object is valid where it goes now.
    const server = await memoryServer();
    try {
      for (const item of list.items) {
        const [group, version] = String(item['apiVersion']).split('/');
        const plural = { Ingress: 'ingresses', Deployment: 'deployments', DaemonSet: 'daemonsets', CronJob: 'cronjobs', PodDisruptionBudget: 'poddisruptionbudgets', HorizontalPodAutoscaler: 'horizontalpodautoscalers', EndpointSlice: 'endpointslices', CustomResourceDefinition: 'customresourcedefinitions' }[String(item['kind'])]!;
        const path = item['kind'] === 'CustomResourceDefinition' ? `/apis/${group}/${version}/${plural}` : `/apis/${group}/${version}/namespaces/default/${plural}`;
        const created = await call(server.url, 'POST', `${path}?dryRun=All`, { body: item });
        assert.equal(created.status, 201, `${String(item['kind'])}: ${created.text}`);
      }
    } finally {
      await server.close();
    }
  });

  it('converts between served versions with --output-version, prints JSON with -o json, and says what it cannot do', async () => {
    const v2 = 'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nspec:\n  scaleTargetRef: {kind: Deployment, name: web, apiVersion: apps/v1}\n  maxReplicas: 3\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n';
    const r = await convert(['-f', '-', '--output-version', 'autoscaling/v1', '-o', 'json'], v2);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { maxReplicas: 3, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, targetCPUUtilizationPercentage: 50 } });
    // An Event across its two groups, with the reference's field mapping, and back.
    const core = 'apiVersion: v1\nkind: Event\nmetadata: {name: e, namespace: default}\ninvolvedObject: {kind: Pod, name: p, namespace: default}\nreason: Started\nmessage: hello\ntype: Normal\nreportingComponent: kubelet\nreportingInstance: node-a\ncount: 2\n';
    const toNew = await convert(['-f', '-', '--output-version', 'events.k8s.io/v1', '-o', 'json'], core);
    assert.equal(toNew.code, 0, toNew.stderr);
    const converted = JSON.parse(toNew.stdout);
    assert.equal(converted.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual([converted.note, converted.regarding.name, converted.reportingController, converted.deprecatedCount], ['hello', 'p', 'kubelet', 2]);
    const back = await convert(['-f', '-', '--output-version', 'v1', '-o', 'json'], toNew.stdout);
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual([JSON.parse(back.stdout).message, JSON.parse(back.stdout).involvedObject.name, JSON.parse(back.stdout).count], ['hello', 'p', 2]);
    const psp = await convert(['-f', '-'], 'apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: p}\n');
    assert.equal(psp.code, 1);
    assert.match(psp.stderr, /PodSecurityPolicy was removed in Kubernetes 1\.25 with no replacement/);
    const wrong = await convert(['-f', '-', '--output-version', 'batch/v1'], v2);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /no kind "HorizontalPodAutoscaler" is registered for version "batch\/v1"/);
    const format = await convert(['-f', '-', '-o', 'wide'], v2);
    assert.match(format.stderr, /allowed formats are: json,yaml/);
    const missing = await run(process.execPath, [CAPSTAN, 'convert', '--output-version=autoscaling/v2beta2'], { timeout: 20_000 }).catch((e: { code: number; stderr: string }) => e);
    assert.match((missing as { stderr: string }).stderr, /must specify one of -f/);
  });
});
