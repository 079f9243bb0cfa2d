// Real CRDs (cert-manager, the Prometheus operator, Argo CD): every version's schema passes the
// CRD schema checks, and a real-looking custom resource of each validates, prunes and defaults
// as kube-apiserver 1.25 does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../../src/errors.js';
import {
  applyDefaults, fieldManagerSchema, publishedSchema, pruneCustomResource, schemaDepth, toStructural, validateCustomResource, validateVersionSchema,
} from '../../../src/apiextensions/schema/index.js';
import { fixtureSchema, loadFixtureCrds } from './crd-fixtures.js';

const text = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${e.detail}`);
const opts = { timeout: 10_000 };

/** What the reference does to a request body: default, prune (unknown fields), validate. */
function admit(name: string, body: Record<string, unknown>): { obj: Record<string, unknown>; unknownFields: string[]; errors: string[] } {
  const { schema, structural } = fixtureSchema(name);
  const obj = structuredClone(body);
  applyDefaults(obj, structural);
  const pruned = pruneCustomResource(obj, structural);
  assert.equal(pruned.error, undefined);
  return { obj, unknownFields: pruned.unknownFields, errors: text(validateCustomResource(obj, schema, structural)) };
}

describe('fixture CRDs', () => {
  const crds = loadFixtureCrds();
  it('holds the CRDs of cert-manager, the Prometheus operator and Argo CD', opts, () => {
    assert.deepEqual(crds.map((c) => c.name), [
      'applications.argoproj.io', 'appprojects.argoproj.io',
      'certificaterequests.cert-manager.io', 'certificates.cert-manager.io', 'clusterissuers.cert-manager.io', 'issuers.cert-manager.io',
      'podmonitors.monitoring.coreos.com', 'prometheuses.monitoring.coreos.com', 'prometheusrules.monitoring.coreos.com', 'servicemonitors.monitoring.coreos.com',
    ]);
  });
  for (const crd of crds) {
    for (const [i, v] of crd.versions.entries()) {
      it(`${crd.name} ${v.name}: structural, passes every schema check, publishes`, opts, () => {
        assert.deepEqual(text(validateVersionSchema(v.schema, `spec.versions[${i}].schema`, { statusEnabled: v.statusEnabled })), []);
        const r = toStructural(v.schema);
        assert.ok('structural' in r);
        assert.ok(schemaDepth(v.schema) < 32);
        const gvk = { group: crd.group, version: v.name, kind: crd.kind };
        const v3 = publishedSchema(r.structural, gvk, 'v3') as { properties: Record<string, unknown>; 'x-kubernetes-group-version-kind': unknown };
        assert.deepEqual(v3['x-kubernetes-group-version-kind'], [gvk]);
        assert.ok('spec' in v3.properties && 'metadata' in v3.properties);
        assert.equal((fieldManagerSchema(r.structural) as { type: string }).type, 'object');
      });
    }
  }
});

const CERTIFICATE = {
  apiVersion: 'cert-manager.io/v1', kind: 'Certificate',
  metadata: { name: 'example-com', namespace: 'default', labels: { app: 'web' } },
  spec: {
    secretName: 'example-com-tls', duration: '2160h', renewBefore: '360h',
    subject: { organizations: ['example'] },
    commonName: 'example.com', dnsNames: ['example.com', 'www.example.com'],
    privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
    usages: ['server auth', 'client auth'],
    issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' },
  },
};

const SERVICE_MONITOR = {
  apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor',
  metadata: { name: 'web', namespace: 'monitoring' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    namespaceSelector: { matchNames: ['default'] },
    endpoints: [{ port: 'metrics', interval: '30s', path: '/metrics', scheme: 'https', tlsConfig: { insecureSkipVerify: true }, relabelings: [{ sourceLabels: ['__meta_kubernetes_pod_name'], targetLabel: 'pod' }] }],
  },
};

const APPLICATION = {
  apiVersion: 'argoproj.io/v1alpha1', kind: 'Application',
  metadata: { name: 'guestbook', namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
  spec: {
    project: 'default',
    source: { repoURL: 'https://github.com/argoproj/argocd-example-apps.git', targetRevision: 'HEAD', path: 'guestbook', helm: { valueFiles: ['values.yaml'], parameters: [{ name: 'replicas', value: '2' }] } },
    destination: { server: 'https://kubernetes.default.svc', namespace: 'guestbook' },
    syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['CreateNamespace=true'], retry: { limit: 5, backoff: { duration: '5s', factor: 2, maxDuration: '3m' } } },
  },
};

describe('custom resources of the fixture CRDs', () => {
  it('a Certificate validates and comes out unchanged', opts, () => {
    const r = admit('certificates.cert-manager.io', CERTIFICATE);
    assert.deepEqual(r, { obj: CERTIFICATE, unknownFields: [], errors: [] });
  });
  it('a Certificate with unknown fields loses them, reported by path', opts, () => {
    const body = structuredClone(CERTIFICATE) as Record<string, any>;
    body.metadata.labelz = { a: 'b' };
    body.spec.dnsName = 'typo.example.com';
    body.spec.privateKey.bits = 2048;
    body.spec.issuerRef.namespace = 'x';
    body.status = { conditions: [{ type: 'Ready', status: 'True', reason: 'Issued', extra: 1 }] };
    const r = admit('certificates.cert-manager.io', body);
    assert.deepEqual(r.unknownFields, ['metadata.labelz', 'spec.dnsName', 'spec.issuerRef.namespace', 'spec.privateKey.bits', 'status.conditions[0].extra']);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.obj['spec'], CERTIFICATE.spec);
  });
  it('a bad Certificate gets the reference\'s messages', opts, () => {
    const body = structuredClone(CERTIFICATE) as Record<string, any>;
    delete body.spec.secretName;
    body.spec.privateKey.algorithm = 'DSA';
    body.spec.privateKey.rotationPolicy = 'Sometimes';
    body.spec.usages = ['server auth', 'world domination'];
    body.spec.dnsNames = 'example.com';
    body.spec.duration = 90;
    body.spec.revisionHistoryLimit = 0; // no minimum in the schema (cert-manager's webhook checks it)
    const r = admit('certificates.cert-manager.io', body);
    assert.deepEqual(r.errors.sort(), [
      'spec.dnsNames: Invalid value: "string": spec.dnsNames in body must be of type array: "string"',
      'spec.duration: Invalid value: "integer": spec.duration in body must be of type string: "integer"',
      'spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"',
      'spec.privateKey.rotationPolicy: Unsupported value: "Sometimes": supported values: "Never", "Always"',
      'spec.secretName: Required value',
      'spec.usages[1]: Unsupported value: "world domination": supported values: "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"',
    ]);
  });
  it('an Issuer with an ACME solver keeps its free-form parts and defaults nothing it should not', opts, () => {
    const issuer = {
      apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'le', namespace: 'default' },
      spec: { acme: { server: 'https://acme-v02.api.letsencrypt.org/directory', email: 'ops@example.com', privateKeySecretRef: { name: 'le-key' },
        solvers: [{ http01: { ingress: { class: 'nginx', podTemplate: { spec: { nodeSelector: { a: 'b' } } } } }, selector: { dnsZones: ['example.com'] } }] } },
    };
    const r = admit('issuers.cert-manager.io', issuer);
    assert.deepEqual(r, { obj: issuer, unknownFields: [], errors: [] });
  });
  it('a ServiceMonitor validates and its relabelings get their default action; a bad scheme, a bad relabel action and a non-integer port are refused', opts, () => {
    const defaulted = structuredClone(SERVICE_MONITOR);
    (defaulted.spec.endpoints[0]!.relabelings[0] as Record<string, unknown>)['action'] = 'replace';
    assert.deepEqual(admit('servicemonitors.monitoring.coreos.com', SERVICE_MONITOR), { obj: defaulted, unknownFields: [], errors: [] });
    const body = structuredClone(SERVICE_MONITOR) as Record<string, any>;
    body.spec.endpoints[0].scrapeTimeout = '30 seconds';
    body.spec.endpoints[0].relabelings[0].action = 'explode';
    body.spec.endpoints[0].targetPort = true;
    body.spec.endpoints[0].honorLabelz = true;
    const r = admit('servicemonitors.monitoring.coreos.com', body);
    assert.deepEqual(r.unknownFields, ['spec.endpoints[0].honorLabelz']);
    // An int-or-string's anyOf adds its failure at <nil> and its first branch's, as the reference does.
    assert.deepEqual(r.errors.sort(), [
      'spec.endpoints[0].relabelings[0].action: Unsupported value: "explode": supported values: "replace", "Replace", "keep", "Keep", "drop", "Drop", "hashmod", "HashMod", "labelmap", "LabelMap", "labeldrop", "LabelDrop", "labelkeep", "LabelKeep", "lowercase", "Lowercase", "uppercase", "Uppercase"',
      'spec.endpoints[0].scrapeTimeout: Invalid value: "30 seconds": spec.endpoints[0].scrapeTimeout in body should match \'^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$\'',
      'spec.endpoints[0].targetPort: Invalid value: "boolean": spec.endpoints[0].targetPort in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": "spec.endpoints[0].targetPort" must validate at least one schema (anyOf)',
      'spec.endpoints[0].targetPort: Invalid value: "boolean": spec.endpoints[0].targetPort in body must be of type integer: "boolean"',
    ].sort());
  });
  it('a PrometheusRule gets its case-insensitive pattern (RE2 (?i)) checked', opts, () => {
    const rule = (strategy: string) => ({
      apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'r', namespace: 'monitoring' },
      spec: { groups: [{ name: 'g', partial_response_strategy: strategy, rules: [{ alert: 'Down', expr: 'up == 0', for: '5m', labels: { severity: 'page' } }] }] },
    });
    assert.deepEqual(admit('prometheusrules.monitoring.coreos.com', rule('WARN')).errors, []);
    assert.deepEqual(admit('prometheusrules.monitoring.coreos.com', rule('ignore')).errors, [
      'spec.groups[0].partial_response_strategy: Invalid value: "ignore": spec.groups[0].partial_response_strategy in body should match \'^(?i)(abort|warn)?$\'',
    ]);
  });
  it('a PodMonitor without podMetricsEndpoints names what is required', opts, () => {
    const r = admit('podmonitors.monitoring.coreos.com', { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name: 'p' }, spec: {} });
    assert.deepEqual(r.errors, ['spec.podMetricsEndpoints: Required value', 'spec.selector: Required value']);
  });
  it('a Prometheus validates, its storage template keeps an embedded resource\'s metadata only as ObjectMeta', opts, () => {
    const prom = {
      apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', metadata: { name: 'k8s', namespace: 'monitoring' },
      spec: {
        replicas: 2, serviceAccountName: 'prometheus', serviceMonitorSelector: {}, ruleSelector: { matchLabels: { role: 'alert-rules' } },
        resources: { requests: { memory: '400Mi', cpu: 1 } }, retention: '15d',
        storage: { volumeClaimTemplate: { metadata: { name: 'data', bogus: true }, spec: { storageClassName: 'ssd', resources: { requests: { storage: '40Gi' } } } } },
        containers: [{ name: 'sidecar', image: 'busybox', ports: [{ containerPort: 8080, protocol: 'TCP' }] }],
        alerting: { alertmanagers: [{ namespace: 'monitoring', name: 'alertmanager-main', port: 'web' }] },
      },
    };
    const r = admit('prometheuses.monitoring.coreos.com', prom);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.unknownFields, ['spec.storage.volumeClaimTemplate.metadata.bogus']);
    const bad = structuredClone(prom) as Record<string, any>;
    bad.spec.containers[0].ports.push({ containerPort: 8080, protocol: 'TCP', name: 'again' });
    bad.spec.resources.requests.memory = 'lots';
    assert.deepEqual(admit('prometheuses.monitoring.coreos.com', bad).errors, [
      'spec.resources.requests.memory: Invalid value: "lots": spec.resources.requests.memory in body should match \'^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$\'',
      'spec.containers[0].ports[1]: Duplicate value: map[string]interface {}{"containerPort":8080, "protocol":"TCP"}',
    ]);
  });
  it('an Application validates and keeps its fields; a missing destination is required', opts, () => {
    assert.deepEqual(admit('applications.argoproj.io', APPLICATION), { obj: APPLICATION, unknownFields: [], errors: [] });
    const body = structuredClone(APPLICATION) as Record<string, any>;
    delete body.spec.destination;
    body.spec.source.helm.parameters[0].forceString = 'yes';
    assert.deepEqual(admit('applications.argoproj.io', body).errors.sort(), [
      'spec.destination: Required value',
      'spec.source.helm.parameters[0].forceString: Invalid value: "string": spec.source.helm.parameters[0].forceString in body must be of type boolean: "string"',
    ]);
  });
  it('an AppProject validates', opts, () => {
    const project = {
      apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'team-a', namespace: 'argocd' },
      spec: { description: 'Team A', sourceRepos: ['*'], destinations: [{ namespace: 'team-a-*', server: '*' }], clusterResourceWhitelist: [{ group: '', kind: 'Namespace' }], roles: [{ name: 'ci', policies: ['p, proj:team-a:ci, applications, sync, team-a/*, allow'] }] },
    };
    assert.deepEqual(admit('appprojects.argoproj.io', project), { obj: project, unknownFields: [], errors: [] });
  });
});
