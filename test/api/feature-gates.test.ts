// --feature-gates as kube-apiserver 1.25 reads it: the table (checked against the reference's
// source), the reference's parsing, errors and warnings, AllAlpha/AllBeta, repeated flags, --help's
// list; and the gates capstan honours, end to end on a real server: APIListChunking,
// ServerSideFieldValidation and CustomResourceValidationExpressions switched off.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FEATURE_GATES_1_25, FeatureGates, featureGateHelpLines } from '../../src/api/feature-gates.js';
import { CRD_SCHEMA_ENGINE } from '../../src/apiextensions/engine.js';
import { dropDisabledValidationRules, withoutValidationRules } from '../../src/apiextensions/validation-rules-gate.js';
import { HELP, parseOptions } from '../../src/cmd/options.js';
import { kubeApiserverHelp } from '../../src/cmd/kube-apiserver-flags.js';
import { prepareKubeApiserver } from '../../src/cmd/kube-apiserver-start.js';
import type { JsonObject } from '../../src/json.js';
import { call, memoryServer, until } from '../helpers.js';

const gate = (name: string) => FEATURE_GATES_1_25.get(name);

describe('the 1.25 feature gate table', { timeout: 10_000 }, () => {
  it('holds every gate kube-apiserver 1.25.0 knows, as the reference source has them', () => {
    assert.equal(FEATURE_GATES_1_25.size, 139);
    // From k8s.io/apiserver v0.25.0 pkg/features.
    assert.deepEqual(gate('ServerSideFieldValidation'), { name: 'ServerSideFieldValidation', stage: 'BETA', default: true, lockToDefault: false, source: 'apiserver' });
    assert.deepEqual(gate('CustomResourceValidationExpressions'), { name: 'CustomResourceValidationExpressions', stage: 'BETA', default: true, lockToDefault: false, source: 'apiserver' });
    assert.deepEqual(gate('APIListChunking'), { name: 'APIListChunking', stage: 'BETA', default: true, lockToDefault: false, source: 'apiserver' });
    // DryRun is GA and not locked in 1.25 (it was locked in 1.26).
    assert.deepEqual(gate('DryRun'), { name: 'DryRun', stage: 'GA', default: true, lockToDefault: false, source: 'apiserver' });
    assert.deepEqual(gate('WatchBookmark'), { name: 'WatchBookmark', stage: 'GA', default: true, lockToDefault: true, source: 'apiserver' });
    // From k8s.io/kubernetes pkg/features.
    assert.deepEqual(gate('CSIMigration'), { name: 'CSIMigration', stage: 'GA', default: true, lockToDefault: true, source: 'kubernetes' });
    assert.deepEqual(gate('DynamicKubeletConfig'), { name: 'DynamicKubeletConfig', stage: 'DEPRECATED', default: false, lockToDefault: false, source: 'kubernetes' });
    assert.equal(gate('JobPodFailurePolicy')?.stage, 'ALPHA');
    // From k8s.io/component-base.
    assert.deepEqual(gate('AllAlpha'), { name: 'AllAlpha', stage: 'ALPHA', default: false, lockToDefault: false, source: 'component-base' });
    assert.equal(gate('LoggingBetaOptions')?.default, true);
    // Removed before 1.25, or added after: unknown.
    assert.equal(gate('WarningHeaders'), undefined);
    assert.equal(gate('AggregatedDiscoveryEndpoint'), undefined);
    assert.equal(gate('ComponentSLIs'), undefined);
  });
});

describe('--feature-gates parsing', { timeout: 10_000 }, () => {
  it('defaults every gate: alpha off, beta on', () => {
    const gates = FeatureGates.DEFAULTS;
    assert.equal(gates.enabled('APIListChunking'), true);
    assert.equal(gates.enabled('APIServerTracing'), false);
    assert.equal(gates.enabled('MinDomainsInPodTopologySpread'), false);
    assert.deepEqual(gates.warnings, []);
  });

  it('sets gates with Go booleans, repeated flags adding up, the last word winning', () => {
    const { options } = parseOptions(['--feature-gates', 'APIListChunking=false,APIServerTracing=T', '--feature-gates=ServerSideFieldValidation=0', '--feature-gates', 'APIListChunking=TRUE']);
    assert.deepEqual(options.featureGates, ['APIListChunking=false', 'APIServerTracing=T', 'ServerSideFieldValidation=0', 'APIListChunking=TRUE']);
    const gates = FeatureGates.parse(options.featureGates);
    assert.equal(gates.enabled('APIListChunking'), true);
    assert.equal(gates.enabled('APIServerTracing'), true);
    assert.equal(gates.enabled('ServerSideFieldValidation'), false);
    assert.equal(gates.enabled('OpenAPIV3'), true);
  });

  it('refuses what the reference refuses, with its words, naming the flag', () => {
    assert.throws(() => parseOptions(['--feature-gates', 'NoSuchGate=true']), (err: Error) => err.message === '--feature-gates: unrecognized feature gate: NoSuchGate');
    assert.throws(() => parseOptions(['--feature-gates', 'APIListChunking=maybe']),
      (err: Error) => err.message === '--feature-gates: invalid value of APIListChunking=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    assert.throws(() => parseOptions(['--feature-gates', 'APIListChunking']), (err: Error) => err.message === '--feature-gates: missing bool value for APIListChunking');
    assert.throws(() => parseOptions(['--feature-gates', 'WatchBookmark=false']),
      (err: Error) => err.message === '--feature-gates: cannot set feature gate WatchBookmark to false, feature is locked to true');
    assert.throws(() => parseOptions(['--feature-gates', 'CSIMigration=false']),
      (err: Error) => err.message === '--feature-gates: cannot set feature gate CSIMigration to false, feature is locked to true');
    // A locked gate set to its own value is accepted (and warned about, being GA).
    assert.deepEqual(FeatureGates.parse(['CSIMigration=true']).warnings, ['Setting GA feature gate CSIMigration=true. It will be removed in a future release.']);
  });

  it('warns when a GA or deprecated gate is set, as the reference', () => {
    const gates = FeatureGates.parse(['ServerSideApply=false', 'DynamicKubeletConfig=true', 'APIListChunking=true']);
    assert.deepEqual(gates.warnings, [
      'Setting GA feature gate ServerSideApply=false. It will be removed in a future release.',
      'Setting deprecated feature gate DynamicKubeletConfig=true. It will be removed in a future release.',
    ]);
    // ServerSideApply is not locked in 1.25: it can be set false (capstan keeps applying).
    assert.equal(gates.enabled('ServerSideApply'), false);
  });

  it('AllAlpha and AllBeta switch every gate of their stage not given explicitly', () => {
    const alpha = FeatureGates.parse(['AllAlpha=true', 'APIServerTracing=false']);
    assert.equal(alpha.enabled('KMSv2'), true);
    assert.equal(alpha.enabled('ContextualLogging'), true);
    assert.equal(alpha.enabled('APIServerTracing'), false);
    assert.equal(alpha.enabled('APIListChunking'), true);
    // The gate named before the switch wins too.
    const beta = FeatureGates.parse(['APIListChunking=true', 'AllBeta=false']);
    assert.equal(beta.enabled('APIListChunking'), true);
    assert.equal(beta.enabled('ServerSideFieldValidation'), false);
    assert.equal(beta.enabled('MinDomainsInPodTopologySpread'), false);
    // GA gates are not touched by either.
    assert.equal(FeatureGates.parse(['AllBeta=false', 'AllAlpha=false']).enabled('ServerSideApply'), true);
  });

  it('lists the alpha and beta gates in --help as the reference does, in byte order', () => {
    const lines = featureGateHelpLines();
    assert.equal(lines.length, 104);
    assert.equal(lines[0], 'APIListChunking=true|false (BETA - default=true)');
    assert.ok(lines.indexOf('AllAlpha=true|false (ALPHA - default=false)') === lines.indexOf('APIServerTracing=true|false (ALPHA - default=false)') + 1);
    assert.ok(lines.includes('AllBeta=true|false (BETA - default=false)'));
    assert.ok(!lines.some((l) => l.startsWith('DryRun=') || l.startsWith('DynamicKubeletConfig=')));
    assert.ok(HELP.includes('                          ServerSideFieldValidation=true|false (BETA - default=true)\n'));
    assert.ok(kubeApiserverHelp().includes(`${' '.repeat(60)}CustomResourceValidationExpressions=true|false (BETA - default=true)\n`));
  });

  it('is a flag the kube-apiserver launcher implements, no longer named as without effect', async () => {
    const prepared = await prepareKubeApiserver(['--feature-gates=APIListChunking=false', '--feature-gates', 'AllAlpha=true'], process.cwd());
    try {
      assert.deepEqual(prepared.options.featureGates, ['APIListChunking=false', 'AllAlpha=true']);
      assert.ok(!prepared.notes.some((n) => n.includes('feature-gates')), prepared.notes.join('\n'));
    } finally {
      if (prepared.temporaryDataDir) rmSync(prepared.options.dataDir, { recursive: true, force: true });
    }
  });
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'gates.example.com';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const RULED_SPEC: JsonObject = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: 'self.replicas <= 5', message: 'at most 5' }],
  properties: { replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] } },
};
const widgetsCrd = (): JsonObject => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: structuredClone(RULED_SPEC) } } } }],
  },
});

describe('gates honoured by a running server', { timeout: 60_000 }, () => {
  it('APIListChunking=false: limit and continue are ignored, the whole list answered without continue', { timeout: 20_000 }, async () => {
    const server = await memoryServer({ featureGates: ['APIListChunking=false'], namespaceDefaults: false, kubernetesService: false });
    try {
      for (const name of ['a', 'b', 'c']) {
        const r = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
        assert.equal(r.status, 201, r.text);
      }
      const page = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?limit=1');
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(page.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a', 'b', 'c']);
      assert.equal(page.json.metadata.continue, undefined);
      assert.equal(page.json.metadata.remainingItemCount, undefined);
      // A continue token is not even read.
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps?continue=garbage')).json.items.length, 3);
    } finally {
      await server.close();
    }
    // On by default: the same request is paged.
    const paged = await memoryServer({ namespaceDefaults: false, kubernetesService: false });
    try {
      for (const name of ['a', 'b']) await call(paged.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
      const page = await call(paged.url, 'GET', '/api/v1/namespaces/default/configmaps?limit=1');
      assert.equal(page.json.items.length, 1);
      assert.equal(typeof page.json.metadata.continue, 'string');
    } finally {
      await paged.close();
    }
  });

  it('ServerSideFieldValidation=false: fieldValidation is ignored, unknown fields dropped silently', { timeout: 20_000 }, async () => {
    const server = await memoryServer({ featureGates: ['ServerSideFieldValidation=false'], namespaceDefaults: false, kubernetesService: false });
    try {
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, data: { a: 'b' }, bogus: 1 };
      const created = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers['warning'], undefined);
      assert.equal(created.json.bogus, undefined);
      const updated = await call(server.url, 'PUT', '/api/v1/namespaces/default/configmaps/strict?fieldValidation=Strict', { body: { ...created.json, bogus: 2 } });
      assert.equal(updated.status, 200, updated.text);
      const patched = await call(server.url, 'PATCH', '/api/v1/namespaces/default/configmaps/strict?fieldValidation=Strict', {
        body: { bogus: 3 }, headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      assert.equal(patched.status, 200, patched.text);
      // Without a directive, no warning either (the gate's default would be Warn).
      const plain = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { ...body, metadata: { name: 'plain' } } });
      assert.equal(plain.status, 201, plain.text);
      assert.equal(plain.headers['warning'], undefined);
    } finally {
      await server.close();
    }
    const strict = await memoryServer({ namespaceDefaults: false, kubernetesService: false });
    try {
      const r = await call(strict.url, 'POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, bogus: 1 } });
      assert.equal(r.status, 400, r.text);
    } finally {
      await strict.close();
    }
  });

  it('CustomResourceValidationExpressions=false: a new CRD loses its rules, and none is evaluated', { timeout: 20_000 }, async () => {
    const server = await memoryServer({ featureGates: ['CustomResourceValidationExpressions=false'], namespaceDefaults: false, kubernetesService: false });
    try {
      const created = await call(server.url, 'POST', CRDS, { body: widgetsCrd() });
      assert.equal(created.status, 201, created.text);
      const spec = created.json.spec.versions[0].schema.openAPIV3Schema.properties.spec;
      assert.equal(spec['x-kubernetes-validations'], undefined);
      assert.equal(spec.properties.replicas['x-kubernetes-validations'], undefined);
      await until('widgets served', async () => (await call(server.url, 'GET', WIDGETS)).status === 200, 5_000);
      const widget = await call(server.url, 'POST', WIDGETS, { body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'big' }, spec: { replicas: 9 } } });
      assert.equal(widget.status, 201, widget.text);
    } finally {
      await server.close();
    }
  });

  it('keeps the rules of a CRD that had some, and serves custom resources without evaluating stored rules', () => {
    const old = widgetsCrd();
    const next = widgetsCrd();
    dropDisabledValidationRules(next, old);
    assert.deepEqual(next, widgetsCrd());
    const fresh = widgetsCrd();
    dropDisabledValidationRules(fresh, undefined);
    assert.ok(!JSON.stringify(fresh).includes('x-kubernetes-validations'));

    const schema: JsonObject = { type: 'object', properties: { spec: structuredClone(RULED_SPEC) } };
    const kind = { group: GROUP, version: 'v1', kind: 'Widget' };
    const obj: JsonObject = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'big' }, spec: { replicas: 9 } };
    assert.ok(CRD_SCHEMA_ENGINE.compile(schema, kind).validate(obj, undefined).length > 0);
    assert.deepEqual(withoutValidationRules(CRD_SCHEMA_ENGINE).compile(schema, kind).validate(obj, undefined), []);
    // The CRD's own schema is left as it was.
    assert.ok(JSON.stringify(schema).includes('x-kubernetes-validations'));
  });
});
