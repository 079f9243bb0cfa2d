// The pod-template-hash is the reference's: FNV-32a of go-spew's printout of the Go PodTemplateSpec
// (as stored, i.e. defaulted), then the collision count, safely encoded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fnv32a, podTemplateHash, safeEncode } from '../../src/controllers/kit/hash.js';
import { parseQuantity, spewPodTemplate } from '../../src/controllers/kit/go-spew.js';
import type { JsonObject } from '../../src/json.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, mustOk } from '../helpers.js';

const created = fixture('create/apps-v1-deployments');
const referenceTemplate = (created.response.body as { spec: { template: JsonObject } }).spec.template;
/** The reference's ReplicaSet for that Deployment (table/apps-v1-replicasets.json) is nginx-b96fc8597. */
const REFERENCE_HASH = 'b96fc8597';

function template(spec: JsonObject, labels: Record<string, string> = { app: 'x' }): JsonObject {
  return { metadata: { creationTimestamp: null, labels }, spec };
}

describe('pod-template-hash', { timeout: 60_000 }, () => {
  it('is the reference\'s for the template the reference stored', () => {
    assert.equal(podTemplateHash(referenceTemplate), REFERENCE_HASH);
  });

  describe('on the template capstan stores', () => {
    let server: RunningServer;
    before(async () => {
      server = await memoryServer({ controllers: [] });
    });
    after(() => server.close());

    it('is the reference\'s once capstan has defaulted the same request', async () => {
      const reply = await mustOk(call(server.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', { body: created.request.body }), 201);
      assert.equal(podTemplateHash(reply.json.spec.template), REFERENCE_HASH);
    });
  });

  it('prints empty lists and maps as nil, and a pointer to an empty struct as a value', () => {
    const text = spewPodTemplate(template({ containers: [{ name: 'c', image: 'i', env: [] }], nodeSelector: {}, securityContext: {} }));
    assert.ok(text.startsWith('(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) '));
    assert.match(text, / Env:\(\[\]v1.EnvVar\)<nil> /);
    assert.match(text, / NodeSelector:\(map\[string\]string\)<nil> /);
    assert.match(text, / SecurityContext:\(\*v1.PodSecurityContext\)\{SELinuxOptions:\(\*v1.SELinuxOptions\)<nil> /);
  });

  it('prints quantities as the reference parses them (int64 form; the string kept only when canonical)', () => {
    const text = spewPodTemplate(template({
      containers: [{ name: 'c', image: 'i', resources: { requests: { memory: '128Mi', cpu: '100m' }, limits: { cpu: '1' } } }],
    }));
    assert.match(text, / Resources:\(v1.ResourceRequirements\)\{Limits:\(v1.ResourceList\)map\[cpu:\{i:\(resource.int64Amount\)\{value:\(int64\)1 scale:\(resource.Scale\)0\} d:\(resource.infDecAmount\)\{Dec:\(\*inf.Dec\)<nil>\} s:\(string\)1 Format:\(resource.Format\)DecimalSI\}\] /);
    // Sorted keys; 128Mi is 128·2^20 and (128 & 7) == 0, so the parser keeps no string.
    assert.match(text, /Requests:\(v1.ResourceList\)map\[cpu:\{i:\(resource.int64Amount\)\{value:\(int64\)100 scale:\(resource.Scale\)-3\} [^\]]*s:\(string\)100m Format:\(resource.Format\)DecimalSI\} memory:\{i:\(resource.int64Amount\)\{value:\(int64\)134217728 scale:\(resource.Scale\)0\} [^\]]*s:\(string\) Format:\(resource.Format\)BinarySI\}\]/);
    assert.deepEqual(parseQuantity('1Gi'), { value: 1073741824n, scale: 0, cached: '1Gi', format: 'BinarySI' });
    assert.deepEqual(parseQuantity('1500m'), { value: 1500n, scale: -3, cached: '1500m', format: 'DecimalSI' });
  });

  it('prints int-or-string ports with their kind', () => {
    const text = spewPodTemplate(template({
      containers: [{ name: 'c', image: 'i', readinessProbe: { httpGet: { path: '/', port: 8080 } }, livenessProbe: { tcpSocket: { port: 'http' } } }],
    }));
    assert.match(text, /Port:\(intstr.IntOrString\)\{Type:\(intstr.Type\)0 IntVal:\(int32\)8080 StrVal:\(string\)\}/);
    assert.match(text, /Port:\(intstr.IntOrString\)\{Type:\(intstr.Type\)1 IntVal:\(int32\)0 StrVal:\(string\)http\}/);
    // The probe's handler is an embedded struct: printed under its type's name.
    assert.match(text, /ReadinessProbe:\(\*v1.Probe\)\{ProbeHandler:\(v1.ProbeHandler\)\{Exec:\(\*v1.ExecAction\)<nil> HTTPGet:\(\*v1.HTTPGetAction\)\{Path:\(string\)\/ /);
  });

  it('folds the collision count in as 8 bytes, the first 4 little-endian', () => {
    const printed = Buffer.from(spewPodTemplate(referenceTemplate), 'utf8');
    const expected = safeEncode(String(fnv32a(Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]), fnv32a(printed))));
    assert.equal(podTemplateHash(referenceTemplate, 3), expected);
    assert.notEqual(podTemplateHash(referenceTemplate, 0), REFERENCE_HASH);
  });

  it('still gives a stable hash for what the printer cannot reproduce (a set timestamp)', () => {
    const t = { metadata: { creationTimestamp: '2024-01-01T00:00:00Z', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const h = podTemplateHash(t);
    assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    assert.equal(podTemplateHash(structuredClone(t)), h);
  });
});
