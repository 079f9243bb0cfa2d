// What the tests of unchanged re-applies share (test/registry/unchanged-writes.test.ts over HTTP,
// test/e2e/reapply.test.ts with kubectl): the manifests seen to write on every re-apply — each
// holds something the server stores in another spelling or fills in (an integer quantity, a
// defaulted fieldRef apiVersion, webhook rule defaults, claim templates) — and a watch that
// collects what it is sent.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClientTls } from '../helpers.js';

export const REAPPLY_NAMESPACE = 'reapply';

type Manifest = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

const inNamespace = { namespace: REAPPLY_NAMESPACE };

/** One of each kind, with the REST path of its collection. */
export const REAPPLIED: ReadonlyArray<{ collection: string; manifest: Manifest }> = [
  {
    collection: `/apis/autoscaling/v2/namespaces/${REAPPLY_NAMESPACE}/horizontalpodautoscalers`,
    manifest: {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'hpa', ...inNamespace },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
        metrics: [{ type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: 4 } } }],
      },
    },
  },
  {
    collection: `/apis/apps/v1/namespaces/${REAPPLY_NAMESPACE}/deployments`,
    manifest: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...inNamespace },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx', env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] },
        },
      },
    },
  },
  {
    collection: `/apis/batch/v1/namespaces/${REAPPLY_NAMESPACE}/jobs`,
    manifest: {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'job', ...inNamespace },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'j', image: 'busybox', env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] }],
          },
        },
      },
    },
  },
  {
    collection: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    manifest: {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'reapply-vwc' },
      webhooks: [{
        name: 'check.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { url: 'https://example.com/validate' },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      }],
    },
  },
  {
    collection: `/apis/apps/v1/namespaces/${REAPPLY_NAMESPACE}/statefulsets`,
    manifest: {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'sts', ...inNamespace },
      spec: {
        serviceName: 'sts', selector: { matchLabels: { app: 'sts' } },
        template: {
          metadata: { labels: { app: 'sts' } },
          spec: { containers: [{ name: 's', image: 'nginx', resources: { requests: { cpu: 0.5, memory: '1024Mi' } } }] },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    },
  },
];

/** A watch's events as they arrive (newline-delimited JSON); close() ends it. */
export interface CollectedWatch {
  readonly events: Array<{ type: string; object: { metadata: { name: string; resourceVersion: string } } }>;
  close(): void;
}

/** Opens a watch of `path` (from its query's resourceVersion) and collects its events. */
export function collectWatch(base: string, path: string, tls?: ClientTls): Promise<CollectedWatch> {
  const events: CollectedWatch['events'] = [];
  let pending = '';
  const url = new URL(path, base);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req: ClientRequest = send(url, { headers: { Accept: 'application/json' }, agent: false, ...(tls ?? {}) }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch ${path}: ${res.statusCode}`));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as CollectedWatch['events'][number]);
      });
      res.on('error', () => undefined);
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', (err) => reject(err));
    req.end();
  });
}
