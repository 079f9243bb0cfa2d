// The CRD schema engine on the biggest real CRD (the Prometheus operator's Prometheus, 550 kB):
// time of the CRD's schema checks, and µs per validate+prune+default of one custom resource.
// Run: node dist/bench/crd-schema.js (single-threaded, a few seconds).
import {
  applyDefaults, pruneCustomResource, toStructural, validateCustomResource, validateVersionSchema,
} from '../src/apiextensions/schema/index.js';
import { loadFixtureCrds } from '../test/apiextensions/schema/crd-fixtures.js';

const crd = loadFixtureCrds().find((c) => c.name === 'prometheuses.monitoring.coreos.com')!;
const version = crd.versions[0]!;

function timeMs(runs: number, f: () => void): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) f();
  return Number(process.hrtime.bigint() - t0) / 1e6 / runs;
}

const first = timeMs(1, () => validateVersionSchema(version.schema, 'spec.versions[0].schema', { statusEnabled: true }));
const steady = timeMs(20, () => validateVersionSchema(version.schema, 'spec.versions[0].schema', { statusEnabled: true }));
const converted = toStructural(version.schema);
if (!('structural' in converted)) throw new Error(converted.error);
const s = converted.structural;

const sample = {
  apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', metadata: { name: 'k8s', namespace: 'monitoring', labels: { app: 'prometheus' } },
  spec: {
    replicas: 2, serviceAccountName: 'prometheus', serviceMonitorSelector: {}, podMonitorSelector: {}, ruleSelector: { matchLabels: { role: 'alert-rules' } },
    resources: { requests: { memory: '400Mi', cpu: 1 } }, retention: '15d', externalLabels: { cluster: 'prod' },
    storage: { volumeClaimTemplate: { spec: { storageClassName: 'ssd', resources: { requests: { storage: '40Gi' } } } } },
    containers: [{ name: 'sidecar', image: 'busybox', ports: [{ containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'A', value: 'b' }] }],
    alerting: { alertmanagers: [{ namespace: 'monitoring', name: 'alertmanager-main', port: 'web' }] },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'monitoring', effect: 'NoSchedule' }],
    unknownField: true,
  },
};
const text = JSON.stringify(sample);
const CALLS = 10_000;
let errors = 0;
const perCall = timeMs(CALLS, () => {
  const obj = JSON.parse(text) as Record<string, unknown>;
  applyDefaults(obj, s);
  pruneCustomResource(obj, s);
  errors += validateCustomResource(obj, version.schema, s).length;
});
const parseOnly = timeMs(CALLS, () => JSON.parse(text));
console.log(JSON.stringify({
  crd: crd.name, schemaChecksFirstMs: +first.toFixed(2), schemaChecksSteadyMs: +steady.toFixed(2),
  validatePruneDefaultUsPerCall: +((perCall - parseOnly) * 1000).toFixed(1), jsonParseUsPerCall: +(parseOnly * 1000).toFixed(1), errors,
}));
