// PodSecurity: namespace policy labels, the standards' checks and their messages, and what the
// plugin does with them (refuse, warn, audit) for pods, workloads and namespace relabels.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podSecurity } from '../../src/admission/plugins/pod-security/index.js';
import { evaluatePod, forbiddenDetail } from '../../src/admission/plugins/pod-security/evaluator.js';
import { policyFromLabels, type LevelVersion } from '../../src/admission/plugins/pod-security/policy.js';
import type { AdmissionServices } from '../../src/admission/types.js';
import { admit, attributes, pod, put, refused, testServices } from './support.js';
import { type JsonObject } from '../../src/json.js';

const RESTRICTED_DETAIL = 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
  + 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
  + 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
  + 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

const lv = (level: LevelVersion['level'], minor?: number): LevelVersion => ({ level, version: minor === undefined ? {} : { minor } });
const detail = (level: LevelVersion, spec: JsonObject, metadata: JsonObject = {}) => forbiddenDetail(evaluatePod(level, metadata, spec));
const containers = (...list: JsonObject[]) => ({ containers: list });

/** A pod spec that meets the restricted level. */
const hardened = (): JsonObject => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'c', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }],
  volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'x' } }],
});

describe('Pod Security policy labels', () => {
  it('default to privileged:latest and read level and version per mode', () => {
    assert.deepEqual(policyFromLabels({}), { policy: { enforce: lv('privileged'), audit: lv('privileged'), warn: lv('privileged') }, errors: [] });
    const { policy } = policyFromLabels({ 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.22', 'pod-security.kubernetes.io/audit': 'restricted' });
    // Warn follows a stricter enforce level, with its version.
    assert.deepEqual(policy, { enforce: lv('baseline', 22), audit: lv('restricted'), warn: lv('baseline', 22) });
  });

  it('report invalid values; a bad level is enforced as restricted and warns as privileged', () => {
    const { policy, errors } = policyFromLabels({ 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn': 'loud', 'pod-security.kubernetes.io/audit-version': '1.25' });
    assert.deepEqual(errors.map((e) => `${e.field}: ${e.detail}`), [
      'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "1.25": must be "latest" or "v1.x"',
      'metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "loud": must be one of privileged, baseline, restricted',
    ]);
    assert.equal(policy.enforce.level, 'restricted');
    assert.equal(policy.warn.level, 'privileged');
  });
});

describe('Pod Security Standards checks', () => {
  it('word a default pod\'s restricted violations as the reference does', () => {
    assert.equal(detail(lv('restricted'), containers({ name: 'c', image: 'x' })), RESTRICTED_DETAIL);
    assert.equal(detail(lv('baseline'), containers({ name: 'c', image: 'x' })), '');
    assert.equal(evaluatePod(lv('restricted'), {}, hardened()).allowed, true);
  });

  it('report baseline violations first, each check in id order', () => {
    const spec = {
      hostNetwork: true, hostPID: true,
      securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }], seLinuxOptions: { type: 'spc_t', user: 'root' } },
      volumes: [{ name: 'host', hostPath: { path: '/' } }],
      containers: [
        { name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 80 }], securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN', 'CHOWN'] } } },
        { name: 'b', image: 'x', securityContext: { procMount: 'Unmasked', seccompProfile: { type: 'Unconfined' }, windowsOptions: { hostProcess: true } } },
      ],
    };
    const annotations = { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } };
    assert.equal(detail(lv('baseline'), spec, annotations), [
      'forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/a="unconfined")',
      'non-default capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
      'host namespaces (hostNetwork=true, hostPID=true)',
      'hostPath volumes (volume "host")',
      'hostPort (container "a" uses hostPorts 80, 8080)',
      'privileged (container "a" must not set securityContext.privileged=true)',
      'procMount (container "b" must not set securityContext.procMount to "Unmasked")',
      'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)',
      'seccompProfile (container "b" must not set securityContext.seccompProfile.type to "Unconfined")',
      'forbidden sysctls (kernel.msgmax)',
      'hostProcess (container "b" must not set securityContext.windowsOptions.hostProcess=true)',
    ].join(', '));
  });

  it('replace baseline checks by their restricted forms, and name restricted volume types', () => {
    const spec: JsonObject = {
      ...hardened(),
      volumes: [{ name: 'host', hostPath: { path: '/' } }, { name: 'share', nfs: { server: 's', path: '/' } }, { name: 'ok', secret: { secretName: 's' } }],
      containers: [{ name: 'c', image: 'x', securityContext: { allowPrivilegeEscalation: false, runAsUser: 0, capabilities: { drop: ['ALL'], add: ['CHOWN'] } } }],
    };
    assert.equal(detail(lv('restricted'), spec), [
      'unrestricted capabilities (container "c" must not include "CHOWN" in securityContext.capabilities.add)',
      'restricted volume types (volumes "host", "share" use restricted volume types "hostPath", "nfs")',
      'runAsUser=0 (container "c" must not set runAsUser=0)',
    ].join(', '));
  });

  it('apply the checks of the version asked for', () => {
    const plain = containers({ name: 'c', image: 'x' });
    // Before v1.22 restricted did not require dropping capabilities, before v1.19 no seccomp field, before v1.8 no allowPrivilegeEscalation.
    assert.equal(detail(lv('restricted', 21), plain), RESTRICTED_DETAIL.replace(/unrestricted capabilities \([^)]*\), /, ''));
    assert.equal(detail(lv('restricted', 7), plain), 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)');
    assert.equal(detail(lv('restricted', 40), plain), RESTRICTED_DETAIL);
    const annotated = { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } };
    assert.equal(detail(lv('baseline', 18), plain, annotated), 'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
    assert.equal(detail(lv('baseline', 19), plain, annotated), '');
  });

  it('exempt Windows pods from the Linux-only restricted checks', () => {
    const windows = { os: { name: 'windows' }, containers: [{ name: 'c', image: 'x' }] };
    assert.equal(detail(lv('restricted'), windows), 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)');
  });
});

async function namespaceWith(labels: Record<string, string>): Promise<AdmissionServices> {
  const services = await testServices();
  await put(services, '/v1/namespaces', { metadata: { name: 'team', labels } });
  return services;
}

describe('PodSecurity admission', () => {
  it('refuses pods that violate the enforced level, as the reference words it', async () => {
    const services = await namespaceWith({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const a = attributes(services, { gvr: '/v1/pods', namespace: 'team', object: pod('p') });
    const err = await refused(admit(podSecurity, services, a), 403, `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`);
    assert.deepEqual(JSON.parse(JSON.stringify(err.toStatus().details)), { name: 'p', kind: 'pods' });
    assert.deepEqual(a.warnings, []);
    assert.equal(a.annotations['pod-security.kubernetes.io/enforce-policy'], 'restricted:latest');
    await admit(podSecurity, services, attributes(services, { gvr: '/v1/pods', namespace: 'team', object: pod('q', hardened()) }));
    // The reference names the request's name, which a generateName create does not have.
    const generated = attributes(services, { gvr: '/v1/pods', namespace: 'team', name: '', object: pod('web-x2b4z', {}, { generateName: 'web-' }) });
    await refused(admit(podSecurity, services, generated), 403, `pods is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`);
  });

  it('warns and audits without refusing, once per distinct level and version', async () => {
    const services = await namespaceWith({ 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'baseline', 'pod-security.kubernetes.io/enforce': 'baseline' });
    const a = attributes(services, { gvr: '/v1/pods', namespace: 'team', object: pod('p', { hostIPC: true, containers: [{ name: 'c', image: 'x' }] }) });
    await refused(admit(podSecurity, services, a), 403, 'pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostIPC=true)');
    assert.deepEqual(a.warnings, [], 'no warnings on a refused request');
    assert.equal(a.annotations['pod-security.kubernetes.io/audit-violations'], 'would violate PodSecurity "baseline:latest": host namespaces (hostIPC=true)');
    const b = attributes(services, { gvr: '/v1/pods', namespace: 'team', object: pod('q') });
    await admit(podSecurity, services, b);
    assert.deepEqual(b.warnings, [`would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`]);
    assert.deepEqual(b.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'baseline:latest' });
  });

  it('warns about workloads\' pod templates but never refuses them', async () => {
    const services = await namespaceWith({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const deployment = { metadata: { name: 'web' }, spec: { template: { metadata: { labels: { a: 'b' } }, spec: containers({ name: 'c', image: 'x' }) } } };
    const a = attributes(services, { gvr: 'apps/v1/deployments', namespace: 'team', object: deployment });
    await admit(podSecurity, services, a);
    assert.deepEqual(a.warnings, [`would violate PodSecurity "restricted:latest": ${RESTRICTED_DETAIL}`]);
    const cronjob = { metadata: { name: 'nightly' }, spec: { schedule: '@daily', jobTemplate: { spec: { template: { spec: { ...containers({ name: 'c', image: 'x' }), hostPID: true } } } } } };
    const c = attributes(services, { gvr: 'batch/v1/cronjobs', namespace: 'team', object: cronjob });
    await admit(podSecurity, services, c);
    assert.match(c.warnings[0]!, /^would violate PodSecurity "restricted:latest": host namespaces \(hostPID=true\), allowPrivilegeEscalation/);
    // Scale and status writes are not looked at; nor is anything in a privileged namespace.
    const scale = attributes(services, { operation: 'UPDATE', gvr: 'apps/v1/deployments', namespace: 'team', subresource: 'scale', object: deployment, oldObject: deployment });
    await admit(podSecurity, services, scale);
    assert.deepEqual(scale.warnings, []);
    const open = attributes(services, { gvr: 'apps/v1/deployments', namespace: 'default', object: deployment });
    await admit(podSecurity, services, open);
    assert.deepEqual(open.warnings, []);
  });

  it('evaluates pod updates only when images or seccomp annotations change', async () => {
    const services = await namespaceWith({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const old = pod('p');
    const labelled = { ...pod('p'), metadata: { name: 'p', labels: { x: 'y' } } };
    await admit(podSecurity, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', namespace: 'team', object: labelled, oldObject: old }));
    const newImage = pod('p', containers({ name: 'c', image: 'nginx:2' }));
    await refused(admit(podSecurity, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', namespace: 'team', object: newImage, oldObject: old })), 403, /violates PodSecurity/);
    await admit(podSecurity, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/pods', namespace: 'team', subresource: 'status', object: newImage, oldObject: old }));
  });

  it('refuses invalid policy labels on namespaces, unless they were already so', async () => {
    const services = await testServices();
    const bad = { metadata: { name: 'ns', labels: { 'pod-security.kubernetes.io/enforce': 'strict' } } };
    const err = await refused(admit(podSecurity, services, attributes(services, { gvr: '/v1/namespaces', object: bad })), 422,
      'Namespace "ns" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted');
    assert.deepEqual(err.toStatus().details?.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "strict": must be one of privileged, baseline, restricted', field: 'metadata.labels[pod-security.kubernetes.io/enforce]' }]);
    const relabelled = { metadata: { name: 'ns', labels: { ...bad.metadata.labels, team: 'a' } } };
    await admit(podSecurity, services, attributes(services, { operation: 'UPDATE', gvr: '/v1/namespaces', object: relabelled, oldObject: bad }));
  });

  it('warns, when a namespace is labelled stricter, about its pods that would be refused', async () => {
    const services = await namespaceWith({});
    const spec = (extra: JsonObject) => ({ ...containers({ name: 'c', image: 'x' }), ...extra });
    await put(services, '/v1/pods', pod('b-host', spec({ hostNetwork: true })), 'team');
    await put(services, '/v1/pods', pod('a-host', spec({ hostNetwork: true })), 'team');
    await put(services, '/v1/pods', pod('c-host', spec({ hostNetwork: true })), 'team');
    await put(services, '/v1/pods', pod('priv', { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] }), 'team');
    await put(services, '/v1/pods', pod('fine'), 'team');
    const before = { metadata: { name: 'team' } };
    const after = { metadata: { name: 'team', labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } };
    const a = attributes(services, { operation: 'UPDATE', gvr: '/v1/namespaces', object: after, oldObject: before });
    await admit(podSecurity, services, a);
    assert.deepEqual(a.warnings, [
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      'a-host (and 2 other pods): host namespaces',
      'priv: privileged',
    ]);
    // Relaxing, or keeping, the level checks nothing.
    const relax = attributes(services, { operation: 'UPDATE', gvr: '/v1/namespaces', object: before, oldObject: after });
    await admit(podSecurity, services, relax);
    assert.deepEqual(relax.warnings, []);
  });
});
