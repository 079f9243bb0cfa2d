// Defaulting rules the create fixtures do not show: image pull policy by reference, templates
// nested in workloads, version-specific HPA rules, defaults on updates, idempotence.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { builtinHooks, call, memoryServer, mustOk } from '../helpers.js';

const NS = '/api/v1/namespaces/defaults';
const APPS = '/apis/apps/v1/namespaces/defaults';
const BATCH = '/apis/batch/v1/namespaces/defaults';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const SHA = 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

/** A pod spec with one of everything that has defaults. */
function richPodSpec(): Record<string, unknown> {
  return {
    initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { cpu: '1' } } }],
    containers: [{
      name: 'app',
      image: 'example.com/app:v2',
      ports: [{ containerPort: 8080 }],
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }],
      livenessProbe: { httpGet: { port: 8080 } },
      readinessProbe: { grpc: { port: 9090 }, periodSeconds: 5 },
      lifecycle: { preStop: { httpGet: { port: 8080, path: '/stop' } } },
      resources: { limits: { memory: '64Mi' }, requests: { cpu: '100m' } },
    }],
    volumes: [
      { name: 'scratch' },
      { name: 'conf', configMap: { name: 'conf' } },
      { name: 'creds', secret: { secretName: 'creds' } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      { name: 'all', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
      { name: 'host', hostPath: { path: '/var/log' } },
      { name: 'claim', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
    ],
  };
}

/** What richPodSpec looks like once defaulted as a template (a pod adds a little more). */
function assertTemplateSpecDefaults(spec: any): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(spec.restartPolicy, 'Always');
  assert.equal(spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.schedulerName, 'default-scheduler');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.deepEqual(spec.securityContext, {});
  const [app] = spec.containers;
  assert.equal(app.imagePullPolicy, 'IfNotPresent');
  assert.equal(app.terminationMessagePath, '/dev/termination-log');
  assert.equal(app.terminationMessagePolicy, 'File');
  assert.equal(app.ports[0].protocol, 'TCP');
  assert.deepEqual(app.env[0].valueFrom.fieldRef, { apiVersion: 'v1', fieldPath: 'metadata.name' });
  assert.deepEqual(app.env[1].valueFrom.resourceFieldRef, { resource: 'limits.cpu', divisor: '0' });
  assert.deepEqual(app.livenessProbe, { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(app.readinessProbe, { grpc: { port: 9090, service: '' }, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(app.lifecycle.preStop.httpGet, { port: 8080, path: '/stop', scheme: 'HTTP' });
  assert.equal(spec.initContainers[0].imagePullPolicy, 'Always');
  const volumes = Object.fromEntries(spec.volumes.map((v: { name: string }) => [v.name, v]));
  assert.deepEqual(volumes.scratch, { name: 'scratch', emptyDir: {} });
  assert.equal(volumes.conf.configMap.defaultMode, 420);
  assert.equal(volumes.creds.secret.defaultMode, 420);
  assert.equal(volumes.info.downwardAPI.defaultMode, 420);
  assert.equal(volumes.info.downwardAPI.items[0].fieldRef.apiVersion, 'v1');
  assert.deepEqual(volumes.all.projected, { defaultMode: 420, sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] });
  assert.deepEqual(volumes.host.hostPath, { path: '/var/log', type: '' });
  assert.deepEqual(volumes.claim.ephemeral.volumeClaimTemplate, {
    metadata: { creationTimestamp: null },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
  });
}

/** Pod-only defaults that templates must not get (they would roll every workload on upgrade). */
function assertNoPodOnlyDefaults(spec: any): void { // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(spec.enableServiceLinks, undefined);
  assert.deepEqual(spec.containers[0].resources, { limits: { memory: '64Mi' }, requests: { cpu: '100m' } });
  assert.deepEqual(spec.initContainers[0].resources, { limits: { cpu: '1' } });
}

describe('defaulting through the API', () => {
  let server: RunningServer;
  const create = async (path: string, body: unknown): Promise<any> => (await mustOk(call(server.url, 'POST', path, { body }), 201)).json; // eslint-disable-line @typescript-eslint/no-explicit-any

  before(async () => {
    server = await memoryServer();
    await create('/api/v1/namespaces', { metadata: { name: 'defaults' } });
  });
  after(() => server.close());

  it('imagePullPolicy: Always for :latest or no tag, IfNotPresent otherwise; a given policy stays', async () => {
    const cases: Array<[string, string]> = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['nginx:1.25', 'IfNotPresent'],
      [`nginx@${SHA}`, 'IfNotPresent'],
      [`nginx:latest@${SHA}`, 'Always'],
      ['localhost:5000/team/app', 'Always'],
      ['localhost:5000/team/app:v1', 'IfNotPresent'],
      ['registry.example.com/app:latest', 'Always'],
      ['docker.io/library/nginx:stable', 'IfNotPresent'],
      ['Nginx', 'IfNotPresent'], // not a valid reference (upper case): no tag to read
    ];
    const containers = cases.map(([image], i) => ({ name: `c${i}`, image }));
    containers.push({ name: 'given', image: 'nginx', imagePullPolicy: 'Never' } as never);
    const pod = await create(`${NS}/pods`, { metadata: { name: 'images' }, spec: { containers } });
    const policies = pod.spec.containers.map((c: { image: string; imagePullPolicy: string }) => [c.image, c.imagePullPolicy]);
    assert.deepEqual(policies, [...cases, ['nginx', 'Never']]);
  });

  it('an image reference that backtracking would explore for ever is read at once (the fuzzer\'s hang)', async () => {
    const images = ['a'.repeat(64) + '!', `${'a-'.repeat(2000)}!`, `${'a'.repeat(40)}.${'b'.repeat(40)}:x/!`, `${'x'.repeat(3000)}:${'1'.repeat(200)}`];
    const started = performance.now();
    const pod = await create(`${NS}/pods`, { metadata: { name: 'odd-images' }, spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) } });
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
    assert.deepEqual(pod.spec.containers.map((c: { imagePullPolicy: string }) => c.imagePullPolicy), ['IfNotPresent', 'IfNotPresent', 'IfNotPresent', 'IfNotPresent']);
  });

  it('quantities come back as the reference stores them: canonical text, resource lists rounded up to thousandths', async () => {
    const pod = await create(`${NS}/pods`, {
      metadata: { name: 'quantities' },
      spec: {
        containers: [{
          name: 'c', image: 'nginx:1.25',
          resources: { requests: { cpu: '0.5', memory: '1.5Gi', 'ephemeral-storage': '100u' }, limits: { cpu: 2, memory: '1536Mi', 'ephemeral-storage': '1e3' } },
        }],
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '0.5Gi' } }],
      },
    });
    assert.deepEqual(pod.spec.containers[0].resources, {
      requests: { cpu: '500m', memory: '1536Mi', 'ephemeral-storage': '1m' },
      limits: { cpu: '2', memory: '1536Mi', 'ephemeral-storage': '1e3' },
    });
    assert.equal(pod.spec.volumes[0].emptyDir.sizeLimit, '512Mi');
    // A status write is decoded whole as well.
    await create('/api/v1/nodes', { metadata: { name: 'sized' } });
    const node = await call(server.url, 'PATCH', '/api/v1/nodes/sized/status', { body: { status: { capacity: { cpu: '4.0', memory: '8192Mi' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.deepEqual(node.json.status.capacity, { cpu: '4', memory: '8Gi' });
  });

  it('a pod gets requests from limits and enableServiceLinks; hostNetwork ports get hostPorts', async () => {
    const spec = { ...richPodSpec(), hostNetwork: true };
    const pod = await create(`${NS}/pods`, { metadata: { name: 'rich' }, spec });
    assertTemplateSpecDefaults(pod.spec);
    assert.equal(pod.spec.enableServiceLinks, true);
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { memory: '64Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
    assert.deepEqual(pod.spec.initContainers[0].resources, { limits: { cpu: '1' }, requests: { cpu: '1' } });
    assert.deepEqual(pod.spec.containers[0].ports, [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
  });

  it('a Deployment template gets the pod spec defaults, not the pod-only ones', async () => {
    const deployment = await create(`${APPS}/deployments`, {
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: richPodSpec() } },
    });
    assert.deepEqual(deployment.spec.template.metadata, { creationTimestamp: null, labels: { app: 'web' } });
    assertTemplateSpecDefaults(deployment.spec.template.spec);
    assertNoPodOnlyDefaults(deployment.spec.template.spec);
    assert.deepEqual(deployment.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  });

  it('a Job gets the Job rules and the template defaults; parallelism alone leaves completions unset', async () => {
    const job = await create(`${BATCH}/jobs`, {
      metadata: { name: 'work' },
      spec: { parallelism: 3, template: { metadata: { labels: { app: 'work' } }, spec: { ...richPodSpec(), restartPolicy: 'Never' } } },
    });
    assert.equal(job.spec.parallelism, 3);
    assert.equal(job.spec.completions, undefined);
    assert.equal(job.spec.backoffLimit, 6);
    assert.equal(job.spec.completionMode, 'NonIndexed');
    assert.equal(job.spec.suspend, false);
    assert.deepEqual(job.metadata.labels, { app: 'work' }, 'labels default to the template labels');
    assert.equal(job.spec.template.spec.restartPolicy, 'Never');
    assertTemplateSpecDefaults({ ...job.spec.template.spec, restartPolicy: 'Always' });
    assertNoPodOnlyDefaults(job.spec.template.spec);
  });

  it("a CronJob's job template gets the pod template defaults but none of the Job rules", async () => {
    const cronJob = await create(`${BATCH}/cronjobs`, {
      metadata: { name: 'nightly' },
      spec: { schedule: '0 3 * * *', concurrencyPolicy: 'Forbid', jobTemplate: { spec: { template: { spec: { ...richPodSpec(), restartPolicy: 'OnFailure' } } } } },
    });
    assert.equal(cronJob.spec.concurrencyPolicy, 'Forbid');
    assert.equal(cronJob.spec.successfulJobsHistoryLimit, 3);
    const jobSpec = cronJob.spec.jobTemplate.spec;
    assert.deepEqual(cronJob.spec.jobTemplate.metadata, { creationTimestamp: null });
    for (const field of ['parallelism', 'completions', 'backoffLimit', 'completionMode', 'suspend']) assert.equal(jobSpec[field], undefined, field);
    assertTemplateSpecDefaults({ ...jobSpec.template.spec, restartPolicy: 'Always' });
    assertNoPodOnlyDefaults(jobSpec.template.spec);
  });

  it('a StatefulSet: claim templates are defaulted as claims; a given update type gets no rollingUpdate', async () => {
    const statefulSet = await create(`${APPS}/statefulsets`, {
      metadata: { name: 'db' },
      spec: {
        selector: { matchLabels: { app: 'db' } },
        updateStrategy: { type: 'RollingUpdate' },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    assert.deepEqual(statefulSet.spec.updateStrategy, { type: 'RollingUpdate' });
    assert.equal(statefulSet.spec.serviceName, '');
    assert.deepEqual(statefulSet.spec.volumeClaimTemplates, [{
      metadata: { name: 'data', creationTimestamp: null },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    }]);
  });

  it('a ReplicationController takes its selector and labels from the template', async () => {
    const rc = await create(`${NS}/replicationcontrollers`, {
      metadata: { name: 'legacy' },
      spec: { template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    });
    assert.deepEqual(rc.spec.selector, { app: 'legacy' });
    assert.deepEqual(rc.metadata.labels, { app: 'legacy' });
    assert.equal(rc.spec.replicas, 1);
  });

  it('Services: ClientIP affinity gets its timeout, LoadBalancer its traffic policies and node ports flag', async () => {
    const service = await create(`${NS}/services`, {
      metadata: { name: 'lb' },
      spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ name: 'https', port: 443, targetPort: 'https' }, { name: 'dns', port: 53, protocol: 'UDP' }] },
    });
    assert.deepEqual(service.spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    assert.equal(service.spec.externalTrafficPolicy, 'Cluster');
    assert.equal(service.spec.internalTrafficPolicy, 'Cluster');
    assert.equal(service.spec.allocateLoadBalancerNodePorts, true);
    assert.deepEqual(service.spec.ports.map((p: object) => ({ ...p, nodePort: undefined })), [
      { name: 'https', port: 443, targetPort: 'https', protocol: 'TCP', nodePort: undefined },
      { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP', nodePort: undefined },
    ]);
    assert.deepEqual(service.status, { loadBalancer: {} });
  });

  it('a NetworkPolicy with egress rules affects Egress too; ports default to TCP', async () => {
    const policy = await create('/apis/networking.k8s.io/v1/namespaces/defaults/networkpolicies', {
      metadata: { name: 'out' },
      spec: { egress: [{ ports: [{ port: 53 }] }] },
    });
    assert.deepEqual(policy.spec, { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'] });
  });

  it('a LimitRange: default limits from max, default requests from them', async () => {
    const limitRange = await create(`${NS}/limitranges`, {
      metadata: { name: 'bounds' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '32Mi' } }, { type: 'Pod', max: { cpu: '4' } }] },
    });
    assert.deepEqual(limitRange.spec.limits, [
      { type: 'Container', max: { cpu: '2' }, min: { memory: '32Mi' }, default: { cpu: '2' }, defaultRequest: { cpu: '2', memory: '32Mi' } },
      { type: 'Pod', max: { cpu: '4' } },
    ]);
  });

  describe('HorizontalPodAutoscaler by version', () => {
    const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

    it('v2: the 80% CPU metric when none is given; a given behavior completed with the default rules', async () => {
      const hpa = await create('/apis/autoscaling/v2/namespaces/defaults/horizontalpodautoscalers', {
        metadata: { name: 'v2' },
        spec: { scaleTargetRef: target, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } },
      });
      assert.equal(hpa.spec.minReplicas, 1);
      assert.deepEqual(hpa.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
      assert.deepEqual(hpa.spec.behavior, {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
        scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      });
      assert.deepEqual(hpa.status, { desiredReplicas: 0, currentMetrics: null });
    });

    it('v2: no behavior stays no behavior; v2beta2 has the same rules', async () => {
      const hpa = await create('/apis/autoscaling/v2beta2/namespaces/defaults/horizontalpodautoscalers', {
        metadata: { name: 'v2beta2' },
        spec: { scaleTargetRef: target, maxReplicas: 5, behavior: { scaleUp: { selectPolicy: 'Disabled' } } },
      });
      assert.equal(hpa.spec.behavior.scaleUp.selectPolicy, 'Disabled');
      assert.equal(hpa.spec.behavior.scaleDown.stabilizationWindowSeconds, undefined);
      const plain = await create('/apis/autoscaling/v2/namespaces/defaults/horizontalpodautoscalers', {
        metadata: { name: 'plain' },
        spec: { scaleTargetRef: target, maxReplicas: 5 },
      });
      assert.equal(plain.spec.behavior, undefined);
    });

    it('v1: minReplicas only; no metric is added', async () => {
      const hpa = await create('/apis/autoscaling/v1/namespaces/defaults/horizontalpodautoscalers', {
        metadata: { name: 'v1' },
        spec: { scaleTargetRef: target, maxReplicas: 5 },
      });
      assert.deepEqual(hpa.spec, { scaleTargetRef: target, maxReplicas: 5, minReplicas: 1 });
      assert.deepEqual(hpa.status, { currentReplicas: 0, desiredReplicas: 0 });
    });
  });

  describe('updates are defaulted too', () => {
    const path = `${APPS}/deployments/updated`;

    before(async () => {
      await create(`${APPS}/deployments`, {
        metadata: { name: 'updated' },
        spec: { selector: { matchLabels: { app: 'u' } }, template: { metadata: { labels: { app: 'u' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } } },
      });
    });

    it('PUT without the defaulted fields gets them back', async () => {
      const current = (await mustOk(call(server.url, 'GET', path))).json;
      const body = structuredClone(current);
      delete body.spec.revisionHistoryLimit;
      delete body.spec.strategy;
      body.spec.template.spec = { containers: [{ name: 'app', image: 'nginx:latest' }] };
      const updated = (await mustOk(call(server.url, 'PUT', path, { body }))).json;
      assert.equal(updated.spec.revisionHistoryLimit, 10);
      assert.deepEqual(updated.spec.strategy, current.spec.strategy);
      assert.equal(updated.spec.template.spec.containers[0].imagePullPolicy, 'Always');
      assert.equal(updated.spec.template.spec.dnsPolicy, 'ClusterFirst');
    });

    it('a merge patch that removes a defaulted field gets the default back; Recreate drops rollingUpdate', async () => {
      const patched = (await mustOk(call(server.url, 'PATCH', path, {
        body: { spec: { strategy: { type: 'Recreate', rollingUpdate: null }, template: { spec: { dnsPolicy: null, terminationGracePeriodSeconds: null } } } },
        headers: MERGE,
      }))).json;
      assert.deepEqual(patched.spec.strategy, { type: 'Recreate' });
      assert.equal(patched.spec.template.spec.dnsPolicy, 'ClusterFirst');
      assert.equal(patched.spec.template.spec.terminationGracePeriodSeconds, 30);
    });

    it('a PUT of what was read changes nothing', async () => {
      const current = (await mustOk(call(server.url, 'GET', path))).json;
      const again = (await mustOk(call(server.url, 'PUT', path, { body: current }))).json;
      assert.equal(again.metadata.resourceVersion, current.metadata.resourceVersion);
    });
  });
});

describe('applyDefaults', () => {
  /** A built-in resource's defaults as the server applies them (its defaulter, then quantities). */
  const applyDefaults = (t: { group: string; version: string; resource: string }, obj: Record<string, unknown>): void => builtinHooks(t.group, t.resource).defaults!(obj, t.version);

  const deployment = (): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x' },
    spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: richPodSpec() } },
  });

  it('is idempotent', () => {
    const targets = [
      [{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }, deployment()],
      [{ group: '', version: 'v1', kind: 'Pod', resource: 'pods' }, { metadata: { name: 'p' }, spec: richPodSpec() }],
      [{ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers' }, { spec: { behavior: {} } }],
      [{ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions' }, { spec: { names: { kind: 'Widget' }, versions: [{ name: 'v1', storage: true }] } }],
    ] as const;
    for (const [target, obj] of targets) {
      const once = structuredClone(obj) as Record<string, unknown>;
      applyDefaults(target, once);
      const twice = structuredClone(once);
      applyDefaults(target, twice);
      assert.deepEqual(twice, once, target.kind);
    }
  });

  it('leaves wrongly typed fields for validation and does not throw', () => {
    const odd: Array<[string, string, string, Record<string, unknown>]> = [
      ['apps', 'v1', 'deployments', { spec: 'nope' }],
      ['apps', 'v1', 'deployments', { spec: { strategy: 7, template: { spec: { containers: 'x', volumes: [null, 3, 'v'] } } } }],
      ['', 'v1', 'pods', { spec: { containers: [{ image: 42, ports: 'p', resources: { limits: 'l' } }], restartPolicy: 1 } }],
      ['', 'v1', 'services', { spec: { ports: [{ port: '80' }], sessionAffinity: 'ClientIP', sessionAffinityConfig: 'c' } }],
      ['autoscaling', 'v2', 'horizontalpodautoscalers', { spec: { behavior: { scaleUp: 'fast' } }, status: [] }],
      ['batch', 'v1', 'cronjobs', { spec: { jobTemplate: [] } }],
    ];
    for (const [group, version, resource, obj] of odd) assert.doesNotThrow(() => applyDefaults({ group, version, resource }, obj), resource);
    const pod = odd[2]![3] as { spec: { restartPolicy: unknown; containers: Array<{ imagePullPolicy: unknown; ports: unknown }> } };
    assert.equal(pod.spec.restartPolicy, 1);
    assert.equal(pod.spec.containers[0]!.ports, 'p');
    assert.equal(pod.spec.containers[0]!.imagePullPolicy, 'IfNotPresent');
  });

  it('knows nothing of kinds without defaults', () => {
    const obj = { metadata: { name: 'c' }, data: { a: 'b' } };
    applyDefaults({ group: '', version: 'v1', resource: 'configmaps' }, obj);
    assert.deepEqual(obj, { metadata: { name: 'c' }, data: { a: 'b' } });
  });
});
