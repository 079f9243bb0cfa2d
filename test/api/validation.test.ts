// Per-type validation rules (src/api/validation): the reference's field paths and messages, one
// rule at a time. Objects are complete enough to be valid without defaulting.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StatusError, type FieldError } from '../../src/errors.js';
import { cronError } from '../../src/api/validation/cron.js';
import { Quantity, quantityError } from '../../src/api/quantity.js';
import { validateObjectMeta } from '../../src/api/names.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { referenceDir } from '../helpers.js';

type Obj = Record<string, unknown>;

interface ValidationTarget {
  group: string;
  version: string;
  kind: string;
}

const builtins = builtinResourceDefinitions();
/** A kind's validation as the server runs it (none for kinds that are not built in). */
const hooksOf = (t: ValidationTarget) => builtins.byKind(t.group, t.version, t.kind)?.definition.hooks ?? {};
const validateCreate = (t: ValidationTarget, o: Obj): FieldError[] => hooksOf(t).validateCreate?.(o, t.version) ?? [];
const validateUpdate = (t: ValidationTarget, o: Obj, old: Obj): FieldError[] => hooksOf(t).validateUpdate?.(o, old, t.version) ?? [];

const target = (group: string, version: string, kind: string): ValidationTarget => ({ group, version, kind });
const POD = target('', 'v1', 'Pod');
const SERVICE = target('', 'v1', 'Service');
const CONFIGMAP = target('', 'v1', 'ConfigMap');
const SECRET = target('', 'v1', 'Secret');
const PVC = target('', 'v1', 'PersistentVolumeClaim');
const DEPLOYMENT = target('apps', 'v1', 'Deployment');
const STATEFULSET = target('apps', 'v1', 'StatefulSet');
const DAEMONSET = target('apps', 'v1', 'DaemonSet');
const JOB = target('batch', 'v1', 'Job');
const CRONJOB = target('batch', 'v1', 'CronJob');
const ROLE = target('rbac.authorization.k8s.io', 'v1', 'Role');
const ROLEBINDING = target('rbac.authorization.k8s.io', 'v1', 'RoleBinding');
const CLUSTERROLEBINDING = target('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding');

const messages = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const create = (t: ValidationTarget, o: Obj): string[] => messages(validateCreate(t, o));
const update = (t: ValidationTarget, o: Obj, old: Obj): string[] => messages(validateUpdate(t, o, old));

const container = (extra: Obj = {}): Obj => ({ name: 'app', image: 'nginx', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File', ...extra });
const podSpec = (extra: Obj = {}): Obj => ({ containers: [container()], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', ...extra });
const pod = (spec: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: podSpec(spec) });
const template = (labels: Obj, spec: Obj = {}): Obj => ({ metadata: { labels }, spec: podSpec(spec) });

const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

describe('pods', () => {
  it('accepts a complete pod', () => {
    assert.deepEqual(create(POD, pod()), []);
  });

  it('requires containers (fixture create-pod-without-containers)', () => {
    assert.deepEqual(create(POD, { metadata: { name: 'empty' }, spec: {} }), ['spec.containers: Required value']);
  });

  it('container names: required, DNS labels, unique across containers and init containers', () => {
    assert.deepEqual(create(POD, pod({ containers: [container({ name: '' })] })), ['spec.containers[0].name: Required value']);
    assert.deepEqual(create(POD, pod({ containers: [container({ name: 'Web_1' })] })), [`spec.containers[0].name: Invalid value: "Web_1": ${LABEL_MSG}`]);
    assert.deepEqual(create(POD, pod({ containers: [container(), container()] })), ['spec.containers[1].name: Duplicate value: "app"']);
    assert.deepEqual(create(POD, pod({ initContainers: [container()] })), ['spec.initContainers[0].name: Duplicate value: "app"']);
  });

  it('image is required', () => {
    assert.deepEqual(create(POD, pod({ containers: [container({ image: '' })] })), ['spec.containers[0].image: Required value']);
    assert.deepEqual(create(POD, pod({ containers: [container({ image: ' nginx' })] })), ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']);
  });

  it('container ports: range, protocol, names, duplicates, host ports', () => {
    const ports = (p: Obj[]) => create(POD, pod({ containers: [container({ ports: p })] }));
    assert.deepEqual(ports([{ containerPort: 70000 }]), [`spec.containers[0].ports[0].containerPort: Invalid value: 70000: ${PORT_RANGE}`]);
    assert.deepEqual(ports([{ containerPort: 0 }]), ['spec.containers[0].ports[0].containerPort: Required value']);
    assert.deepEqual(ports([{ containerPort: 80, protocol: 'HTTP' }]), ['spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']);
    assert.deepEqual(ports([{ containerPort: 80, name: 'Web--Port-Name-Long' }]), [
      'spec.containers[0].ports[0].name: Invalid value: "Web--Port-Name-Long": must be no more than 15 characters',
      'spec.containers[0].ports[0].name: Invalid value: "Web--Port-Name-Long": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[0].name: Invalid value: "Web--Port-Name-Long": must not contain consecutive hyphens',
    ]);
    assert.deepEqual(ports([{ containerPort: 80, name: 'http' }, { containerPort: 81, name: 'http' }]), ['spec.containers[0].ports[1].name: Duplicate value: "http"']);
    assert.deepEqual(ports([{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }, { containerPort: 81, hostPort: 8080, protocol: 'TCP' }]), ['spec.containers[0].ports[1].hostPort: Duplicate value: "/TCP/8080"']);
  });

  it('restartPolicy, dnsPolicy, imagePullPolicy and terminationMessagePolicy values', () => {
    assert.deepEqual(create(POD, pod({ restartPolicy: 'Sometimes' })), ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']);
    assert.deepEqual(create(POD, pod({ dnsPolicy: 'Google' })), ['spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"']);
    assert.deepEqual(create(POD, pod({ containers: [container({ imagePullPolicy: 'Sometimes' })] })), ['spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"']);
    assert.deepEqual(create(POD, pod({ containers: [container({ terminationMessagePolicy: 'Log' })] })), ['spec.containers[0].terminationMessagePolicy: Invalid value: "Log": must be \'File\' or \'FallbackToLogsOnError\'']);
  });

  it('defaulted fields are not required (defaulting fills them)', () => {
    assert.deepEqual(create(POD, { metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }] } }), []);
  });

  it('resources: names, negative values, requests ≤ limits', () => {
    const resources = (r: Obj) => create(POD, pod({ containers: [container({ resources: r })] }));
    assert.deepEqual(resources({ requests: { cpu: '2' }, limits: { cpu: '1' } }), ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit']);
    assert.deepEqual(resources({ requests: { memory: '0.5Gi' }, limits: { memory: '256Mi' } }), ['spec.containers[0].resources.requests: Invalid value: "512Mi": must be less than or equal to memory limit']);
    assert.deepEqual(resources({ requests: { cpu: '-1' } }), ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0']);
    // Values print as the reference's String() does: the text as given when it already looked canonical.
    assert.deepEqual(resources({ requests: { cpu: '-1.500' } }), ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1.500": must be greater than or equal to 0']);
    assert.deepEqual(resources({ requests: { cpu: '-0.5' } }), ['spec.containers[0].resources.requests[cpu]: Invalid value: "-500m": must be greater than or equal to 0']);
    assert.deepEqual(resources({ limits: { storage: '1Gi' } }), ['spec.containers[0].resources.limits[storage]: Invalid value: "storage": must be a standard resource for containers']);
    assert.deepEqual(resources({ requests: { 'example.com/gpu': '1' } }), ['spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources']);
    assert.deepEqual(resources({ requests: { 'example.com/gpu': '500m' }, limits: { 'example.com/gpu': '500m' } }), [
      'spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
      'spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
    ]);
  });

  it('malformed quantities are refused as the decoder refuses them (400)', () => {
    assert.throws(() => validateCreate(POD, pod({ containers: [container({ resources: { limits: { cpu: 'lots' } } })] })), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 400);
      assert.equal(err.message, `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
      return true;
    });
  });

  it('volumes: names unique, exactly one source; mounts refer to existing volumes', () => {
    assert.deepEqual(create(POD, pod({ volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }] })), ['spec.volumes[1].name: Duplicate value: "v"']);
    assert.deepEqual(create(POD, pod({ volumes: [{ name: 'v' }] })), ['spec.volumes[0]: Required value: must specify a volume type']);
    assert.deepEqual(create(POD, pod({ volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] })), ['spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type']);
    assert.deepEqual(create(POD, pod({ volumes: [{ name: 'v', secret: {} }] })), ['spec.volumes[0].secret.secretName: Required value']);
    assert.deepEqual(create(POD, pod({ containers: [container({ volumeMounts: [{ name: 'x', mountPath: '/x' }] })] })), ['spec.containers[0].volumeMounts[0].name: Not found: "x"']);
    assert.deepEqual(create(POD, pod({ volumes: [{ name: 'v', emptyDir: {} }], containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/a' }, { name: 'v', mountPath: '/a' }] })] })), [
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
    ]);
  });

  it('env: names, valueFrom sources', () => {
    const env = (e: Obj[]) => create(POD, pod({ containers: [container({ env: e })] }));
    assert.deepEqual(env([{ name: '1BAD' }]), [
      'spec.containers[0].env[0].name: Invalid value: "1BAD": a valid environment variable name must consist of alphabetic characters, digits, \'_\', \'-\', or \'.\', and must not start with a digit (e.g. \'my.env-name\',  or \'MY_ENV.NAME\',  or \'MyEnvName1\', regex used for validation is \'[-._a-zA-Z][-._a-zA-Z0-9]*\')',
    ]);
    assert.deepEqual(env([{ name: '' }]), ['spec.containers[0].env[0].name: Required value']);
    assert.deepEqual(env([{ name: 'A', valueFrom: {} }]), ['spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`']);
    assert.deepEqual(env([{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'status.phase' } } }]), [
      'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs"',
    ]);
  });

  it('probes need one handler', () => {
    assert.deepEqual(create(POD, pod({ containers: [container({ livenessProbe: { periodSeconds: 5 } })] })), ['spec.containers[0].livenessProbe: Required value: must specify a handler type']);
    assert.deepEqual(create(POD, pod({ containers: [container({ readinessProbe: { tcpSocket: { port: 0 } } })] })), [`spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: 0: ${PORT_RANGE}`]);
  });

  it('activeDeadlineSeconds, tolerations, node selector labels', () => {
    assert.deepEqual(create(POD, pod({ activeDeadlineSeconds: 0 })), ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive']);
    assert.deepEqual(create(POD, pod({ tolerations: [{ operator: 'Equal', value: 'x' }] })), ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"']);
    assert.deepEqual(create(POD, pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }] })), ['spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set']);
  });

  it('ephemeral containers cannot be set on create', () => {
    assert.deepEqual(create(POD, pod({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] })), ['spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });
});

describe('pod updates', () => {
  const fixture = JSON.parse(readFileSync(join(referenceDir, 'errors/update-pod-forbidden-field.json'), 'utf8')) as {
    request: { body: Obj };
    response: { body: { details: { causes: Array<{ message: string }> } } };
  };

  it('may change images, the deadline and add tolerations', () => {
    const old = pod({ tolerations: [{ key: 'a', operator: 'Exists' }] });
    const next = pod({ containers: [container({ image: 'nginx:2' })], activeDeadlineSeconds: 30, tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }] });
    assert.deepEqual(update(POD, next, old), []);
  });

  it('may not add or remove containers', () => {
    assert.deepEqual(update(POD, pod({ containers: [container(), container({ name: 'b' })] }), pod()), ['spec.containers: Forbidden: pod updates may not add or remove containers']);
  });

  it('may not remove tolerations', () => {
    const errs = update(POD, pod(), pod({ tolerations: [{ key: 'a', operator: 'Exists' }] }));
    assert.equal(errs[0], 'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
  });

  it('other changes are refused with the diff (fixture update-pod-forbidden-field)', () => {
    const next = fixture.request.body;
    const old = structuredClone(next);
    ((old['spec'] as Obj)['containers'] as Obj[])[0]!['name'] = 'nginx';
    const errs = validateUpdate(POD, next, old);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'spec');
    assert.equal(errs[0]!.type, 'FieldValueForbidden');
    assert.equal(errs[0]!.detail.replace('kube-api-access-rc2wx', 'kube-api-access-<suffix>'), fixture.response.body.details.causes[0]!.message);
  });

  it('the diff shows removed and inserted values with their types', () => {
    const old = pod({ containers: [container({ ports: [{ containerPort: 80, protocol: 'TCP' }] })] });
    const [err] = update(POD, pod(), old);
    const diff = err!.slice(err!.indexOf('\n') + 1).replaceAll('\u00a0', ' ');
    assert.equal(diff, [
      '  core.PodSpec{',
      '  \tVolumes:        nil,',
      '  \tInitContainers: nil,',
      '  \tContainers: []core.Container{',
      '  \t\t{',
      '  \t\t\t... // 3 identical fields',
      '  \t\t\tArgs:       nil,',
      '  \t\t\tWorkingDir: "",',
      '- \t\t\tPorts:      []core.ContainerPort{{ContainerPort: 80, Protocol: "TCP"}},',
      '+ \t\t\tPorts:      nil,',
      '  \t\t\tEnvFrom:    nil,',
      '  \t\t\tEnv:        nil,',
      '  \t\t\t... // 14 identical fields',
      '  \t\t},',
      '  \t},',
      '  \tEphemeralContainers: nil,',
      '  \tRestartPolicy:       "Always",',
      '  \t... // 26 identical fields',
      '  }',
      '',
    ].join('\n'));
  });
});

describe('services', () => {
  const service = (spec: Obj): Obj => ({ metadata: { name: 's', namespace: 'default' }, spec: { type: 'ClusterIP', sessionAffinity: 'None', ...spec } });
  const port = (extra: Obj = {}): Obj => ({ port: 80, protocol: 'TCP', targetPort: 8080, ...extra });

  it('accepts a complete service', () => {
    assert.deepEqual(create(SERVICE, service({ ports: [port()], selector: { app: 'x' } })), []);
  });

  it('ports: required (not for headless or ExternalName), numbers, protocols, names when several', () => {
    assert.deepEqual(create(SERVICE, service({})), ['spec.ports: Required value']);
    assert.deepEqual(create(SERVICE, service({ clusterIP: 'None' })), []);
    assert.deepEqual(create(SERVICE, service({ ports: [port({ port: 0 })] })), [`spec.ports[0].port: Invalid value: 0: ${PORT_RANGE}`]);
    assert.deepEqual(create(SERVICE, service({ ports: [port({ protocol: 'ICMP' })] })), ['spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']);
    assert.deepEqual(create(SERVICE, service({ ports: [port(), port({ port: 81 })] })), ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
    assert.deepEqual(create(SERVICE, service({ ports: [port({ name: 'a' }), port({ name: 'a', port: 81 })] })), ['spec.ports[1].name: Duplicate value: "a"']);
    assert.deepEqual(create(SERVICE, service({ ports: [port({ name: 'a' }), port({ name: 'b' })] })), [
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    assert.deepEqual(create(SERVICE, service({ ports: [port({ targetPort: 'Http_' })] })), [
      'spec.ports[0].targetPort: Invalid value: "Http_": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });

  it('type, nodePort, externalName, selector, sessionAffinity', () => {
    assert.deepEqual(create(SERVICE, service({ type: 'Internal', ports: [port()] })), ['spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
    assert.deepEqual(create(SERVICE, service({ ports: [port({ nodePort: 30080 })] })), ['spec.ports[0].nodePort: Forbidden: may not be used when `type` is \'ClusterIP\'']);
    assert.deepEqual(create(SERVICE, service({ type: 'ExternalName' })), ['spec.externalName: Required value']);
    assert.deepEqual(create(SERVICE, service({ ports: [port()], selector: { 'a b': 'x' } })).length, 1);
    assert.deepEqual(create(SERVICE, service({ ports: [port()], sessionAffinity: 'Sticky' })), ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"']);
  });

  it('the cluster IP may not change', () => {
    const old = service({ ports: [port()], clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] });
    const next = service({ ports: [port()], clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] });
    assert.deepEqual(update(SERVICE, next, old), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
    assert.deepEqual(update(SERVICE, service({ ports: [port()] }), old), []);
  });
});

describe('workloads (apps/v1)', () => {
  const deployment = (spec: Obj): Obj => ({ metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: template({ app: 'd' }), ...spec } });

  it('accepts a complete deployment', () => {
    assert.deepEqual(create(DEPLOYMENT, deployment({})), []);
  });

  it('selector: required, matching the template labels', () => {
    assert.deepEqual(create(DEPLOYMENT, deployment({ selector: undefined })), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"d"}: `selector` does not match template `labels`',
    ]);
    assert.deepEqual(create(DEPLOYMENT, deployment({ selector: { matchLabels: { app: 'other' } } })), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"d"}: `selector` does not match template `labels`',
    ]);
    assert.deepEqual(create(DEPLOYMENT, deployment({ selector: {} })), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('replicas ≥ 0, restartPolicy Always, strategy values', () => {
    assert.deepEqual(create(DEPLOYMENT, deployment({ replicas: -1 })), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(create(DEPLOYMENT, deployment({ template: template({ app: 'd' }, { restartPolicy: 'Never' }) })), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
    assert.deepEqual(create(DEPLOYMENT, deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } })), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ]);
    assert.deepEqual(create(DEPLOYMENT, deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'half', maxUnavailable: '150%' } } })), [
      'spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')',
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    ]);
  });

  it('the template is validated as a pod template', () => {
    assert.deepEqual(create(DEPLOYMENT, deployment({ template: { metadata: { labels: { app: 'd' } }, spec: { containers: [] } } })), ['spec.template.spec.containers: Required value']);
  });

  it('spec.selector is immutable', () => {
    const old = deployment({});
    const next = deployment({ selector: { matchLabels: { app: 'd', tier: 'x' } }, template: template({ app: 'd', tier: 'x' }) });
    assert.deepEqual(update(DEPLOYMENT, next, old), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"d", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });

  it('statefulsets: only some spec fields may change', () => {
    const ss = (spec: Obj): Obj => ({ metadata: { name: 's', namespace: 'default' }, spec: { serviceName: 'svc', replicas: 1, selector: { matchLabels: { app: 's' } }, template: template({ app: 's' }), ...spec } });
    assert.deepEqual(create(STATEFULSET, ss({})), []);
    assert.deepEqual(update(STATEFULSET, ss({ replicas: 3 }), ss({})), []);
    assert.deepEqual(update(STATEFULSET, ss({ serviceName: 'other' }), ss({})), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    assert.deepEqual(create(STATEFULSET, ss({ podManagementPolicy: 'Random' })), ["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"]);
  });

  it('daemonsets: selector matches, maxSurge and maxUnavailable not both set', () => {
    const ds = (spec: Obj): Obj => ({ metadata: { name: 'ds', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'ds' } }, template: template({ app: 'ds' }), ...spec } });
    assert.deepEqual(create(DAEMONSET, ds({})), []);
    assert.deepEqual(create(DAEMONSET, ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } })), [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ]);
  });
});

describe('jobs and cronjobs', () => {
  const job = (spec: Obj): Obj => ({ metadata: { name: 'j', namespace: 'default' }, spec: { template: template({}, { restartPolicy: 'Never' }), ...spec } });

  it('restartPolicy must be OnFailure or Never', () => {
    assert.deepEqual(create(JOB, job({})), []);
    assert.deepEqual(create(JOB, job({ template: template({}) })), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
  });

  it('counts are non-negative; a manual selector must match', () => {
    assert.deepEqual(create(JOB, job({ completions: -1, backoffLimit: -2 })), [
      'spec.completions: Invalid value: -1: must be greater than or equal to 0',
      'spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0',
    ]);
    assert.deepEqual(create(JOB, job({ manualSelector: true })), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string{}: `selector` does not match template `labels`']);
  });

  it('completions and the template are immutable', () => {
    assert.deepEqual(update(JOB, job({ completions: 2 }), job({ completions: 1 })), ['spec.completions: Invalid value: 2: field is immutable']);
    const changed = update(JOB, job({ template: template({}, { restartPolicy: 'OnFailure' }) }), job({}));
    assert.equal(changed.length, 1);
    assert.match(changed[0]!, /^spec\.template: Invalid value: .*: field is immutable$/);
  });

  it('cronjob schedules parse as cron; concurrencyPolicy values', () => {
    const cj = (spec: Obj): Obj => ({ metadata: { name: 'c', namespace: 'default' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: job({}).spec }, ...spec } });
    assert.deepEqual(create(CRONJOB, cj({})), []);
    assert.deepEqual(create(CRONJOB, cj({ schedule: 'every minute' })), ['spec.schedule: Invalid value: "every minute": expected exactly 5 fields, found 2: [every minute]']);
    assert.deepEqual(create(CRONJOB, cj({ schedule: '' })), ['spec.schedule: Required value']);
    assert.deepEqual(create(CRONJOB, cj({ concurrencyPolicy: 'Sometimes' })), ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']);
  });

  it('cron parser messages', () => {
    assert.equal(cronError('0 0 * * *'), undefined);
    assert.equal(cronError('@daily'), undefined);
    assert.equal(cronError('@weekdays'), 'unrecognized descriptor: @weekdays');
    assert.equal(cronError('61 * * * *'), 'end of range (61) above maximum (59): 61');
    assert.equal(cronError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(cronError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(cronError('* * * JAN-MAR MON'), undefined);
  });
});

describe('configmaps and secrets', () => {
  const KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

  it('keys: valid, not in both data and binaryData', () => {
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c' }, data: { 'a b': 'x' } }), [`data[a b]: Invalid value: "a b": ${KEY_MSG}`]);
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c' }, data: { k: 'x' }, binaryData: { k: 'eA==' } }), ['data[k]: Invalid value: "k": duplicate of key present in binaryData']);
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c' }, data: { '..': 'x' } }), ['data[..]: Invalid value: "..": must not be \'..\'']);
  });

  it('values print as Go quotes them', () => {
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c' }, data: { 'a\u0001': 'x' } }), [`data[a\u0001]: Invalid value: "a\\x01": ${KEY_MSG}`]);
  });

  it('1 MiB in total (fixture create-configmap-over-1mib)', () => {
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c' }, data: { big: 'x'.repeat(1048577) } }), ['[]: Too long: must have at most 1048576 bytes']);
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c' }, data: { big: 'x'.repeat(1048576) } }), []);
  });

  it('immutable contents (fixture update-immutable-configmap)', () => {
    const old = { metadata: { name: 'frozen' }, immutable: true, data: { key: 'value' } };
    assert.deepEqual(update(CONFIGMAP, { ...old, data: { key: 'changed' } }, old), ['data: Forbidden: field is immutable when `immutable` is set']);
    assert.deepEqual(update(CONFIGMAP, { ...old, immutable: false }, old), ['immutable: Forbidden: field is immutable when `immutable` is set']);
    assert.deepEqual(update(CONFIGMAP, { ...old, metadata: { name: 'frozen', labels: { a: 'b' } } }, old), []);
  });

  it('secret types require their keys; type is immutable', () => {
    const secret = (type: string, data: Obj = {}, annotations: Obj = {}): Obj => ({ metadata: { name: 's', annotations }, type, data });
    assert.deepEqual(create(SECRET, secret('kubernetes.io/tls')), ['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
    assert.deepEqual(create(SECRET, secret('kubernetes.io/dockerconfigjson')), ['data[.dockerconfigjson]: Required value']);
    assert.deepEqual(create(SECRET, secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': Buffer.from('[]').toString('base64') })), [
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    ]);
    assert.deepEqual(create(SECRET, secret('kubernetes.io/service-account-token')), ['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
    assert.deepEqual(create(SECRET, secret('kubernetes.io/service-account-token', {}, { 'kubernetes.io/service-account.name': 'default' })), []);
    assert.deepEqual(update(SECRET, secret('example.com/x'), secret('Opaque')), ['type: Invalid value: "example.com/x": field is immutable']);
  });
});

describe('persistent volume claims', () => {
  const claim = (spec: Obj, status: Obj = {}): Obj => ({ metadata: { name: 'c', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec }, status });

  it('access modes and a storage request are required', () => {
    assert.deepEqual(create(PVC, claim({})), []);
    assert.deepEqual(create(PVC, claim({ accessModes: [] })), ['spec.accessModes: Required value: at least 1 access mode is required']);
    assert.deepEqual(create(PVC, claim({ accessModes: ['ReadWriteSometimes'] })), ['spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"']);
    assert.deepEqual(create(PVC, claim({ resources: {} })), ['spec.resources[storage]: Required value']);
    assert.deepEqual(create(PVC, claim({ resources: { requests: { storage: '0' } } })), ['spec.resources[storage]: Invalid value: "0": must be greater than zero']);
  });

  it('the spec is immutable except the storage request of bound claims', () => {
    const errs = update(PVC, claim({ accessModes: ['ReadWriteMany'] }), claim({}));
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /^spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n/);
    assert.match(errs[0]!, /-\u00a0\tAccessModes: +\[\]core.PersistentVolumeAccessMode\{"ReadWriteOnce"\},/);
    assert.deepEqual(update(PVC, claim({ resources: { requests: { storage: '2Gi' } } }, { phase: 'Bound' }), claim({}, { phase: 'Bound' })), []);
    assert.deepEqual(update(PVC, claim({ resources: { requests: { storage: '512Mi' } } }, { phase: 'Bound' }), claim({}, { phase: 'Bound' })), ['spec.resources.requests.storage: Forbidden: field can not be less than previous value']);
    assert.deepEqual(update(PVC, claim({ volumeName: 'pv-1' }), claim({})), []);
  });
});

describe('rbac', () => {
  const binding = (roleRef: Obj, subjects: Obj[] = []): Obj => ({ metadata: { name: 'b', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef }, subjects });

  it('rules need verbs, api groups and resources', () => {
    assert.deepEqual(create(ROLE, { metadata: { name: 'r' }, rules: [{}] }), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
    assert.deepEqual(create(ROLE, { metadata: { name: 'r' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }), ['rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs']);
  });

  it('roleRef kinds and subjects kinds', () => {
    assert.deepEqual(create(ROLEBINDING, binding({ kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'jane' }])), []);
    assert.deepEqual(create(ROLEBINDING, binding({ kind: 'Group', name: 'r' })), ['roleRef.kind: Unsupported value: "Group": supported values: "Role", "ClusterRole"']);
    assert.deepEqual(create(CLUSTERROLEBINDING, binding({ kind: 'Role', name: 'r' })), ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']);
    assert.deepEqual(create(ROLEBINDING, binding({ kind: 'Role', name: 'r' }, [{ kind: 'Robot', name: 'x' }])), ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']);
    assert.deepEqual(create(CLUSTERROLEBINDING, binding({ kind: 'ClusterRole', name: 'r' }, [{ kind: 'ServiceAccount', name: 'sa' }])), ['subjects[0].namespace: Required value']);
  });

  it('roleRef cannot change', () => {
    assert.deepEqual(update(ROLEBINDING, binding({ kind: 'Role', name: 'other' }), binding({ kind: 'Role', name: 'r' })), [
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef',
    ]);
  });
});

describe('metadata checks beyond names', () => {
  it('built-in types refuse unprefixed non-standard finalizers; custom resources do not', () => {
    assert.deepEqual(create(CONFIGMAP, { metadata: { name: 'c', finalizers: ['kubernetes', 'custom', 'example.com/ok'] } }), [
      'metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    assert.deepEqual(create(target('example.com', 'v1', 'Widget'), { metadata: { name: 'w', finalizers: ['custom'] } }), []);
  });

  it('owner references need a version, kind, name and uid; finalizers may not orphan and cascade at once', () => {
    assert.deepEqual(messages(validateObjectMeta({ name: 'c', namespace: 'd', ownerReferences: [{ apiVersion: 'apps/', kind: 'ReplicaSet', name: 'rs' }] }, 'subdomain', true)), [
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    // A core/v1 Event can own nothing (the reference's BannedOwners); an events.k8s.io Event can.
    assert.deepEqual(messages(validateObjectMeta({ name: 'c', namespace: 'd', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u1' }] }, 'subdomain', true)), [
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u1", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    ]);
    assert.deepEqual(messages(validateObjectMeta({ name: 'c', namespace: 'd', ownerReferences: [{ apiVersion: 'events.k8s.io/v1', kind: 'Event', name: 'e', uid: 'u1' }] }, 'subdomain', true)), []);
    assert.deepEqual(messages(validateObjectMeta({ name: 'c', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] }, 'subdomain', true)), [
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });
});

describe('other kinds', () => {
  it('namespaces: finalizer names', () => {
    assert.deepEqual(create(target('', 'v1', 'Namespace'), { metadata: { name: 'n' }, spec: { finalizers: ['kubernetes', 'custom'] } }), [
      'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it('pod disruption budgets: not both minAvailable and maxUnavailable', () => {
    const errs = create(target('policy', 'v1', 'PodDisruptionBudget'), { metadata: { name: 'p' }, spec: { minAvailable: 1, maxUnavailable: 1 } });
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /^spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set$/);
  });

  it('storage classes: provisioner required; parameters fixed', () => {
    const SC = target('storage.k8s.io', 'v1', 'StorageClass');
    assert.deepEqual(create(SC, { metadata: { name: 's' } }), ['provisioner: Required value']);
    assert.deepEqual(update(SC, { metadata: { name: 's' }, provisioner: 'a.io/b', parameters: { x: '2' } }, { metadata: { name: 's' }, provisioner: 'a.io/b', parameters: { x: '1' } }), [
      'parameters: Forbidden: updates to parameters are forbidden.',
    ]);
  });

  it('priority classes: value fixed', () => {
    const PC = target('scheduling.k8s.io', 'v1', 'PriorityClass');
    assert.deepEqual(update(PC, { metadata: { name: 'p' }, value: 2 }, { metadata: { name: 'p' }, value: 1 }), ['value: Forbidden: may not be changed in an update.']);
    assert.deepEqual(create(PC, { metadata: { name: 'p' }, value: 2000000000 }), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
  });

  it('runtime classes: DNS-label handler, immutable', () => {
    const RC = target('node.k8s.io', 'v1', 'RuntimeClass');
    assert.deepEqual(create(RC, { metadata: { name: 'r' }, handler: 'Run_C' }), [`handler: Invalid value: "Run_C": ${LABEL_MSG}`]);
    assert.deepEqual(update(RC, { metadata: { name: 'r' }, handler: 'b' }, { metadata: { name: 'r' }, handler: 'a' }), ['handler: Invalid value: "b": field is immutable']);
  });

  it('certificate signing requests: a PEM request, usages, signer name', () => {
    const CSR = target('certificates.k8s.io', 'v1', 'CertificateSigningRequest');
    const errs = create(CSR, { metadata: { name: 'c' }, spec: { request: Buffer.from('hi').toString('base64'), usages: ['client auth', 'flying'], signerName: 'example' } });
    assert.deepEqual(errs, [
      'spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST',
      'spec.usages[1]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
      "spec.signerName: Invalid value: \"example\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]);
  });

  it('webhook configurations: qualified unique names, one client config, https, sideEffects, review versions', () => {
    const VWC = target('admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration');
    const hook = (extra: Obj): Obj => ({ name: 'check.example.com', sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: 'https://example.com/check' }, ...extra });
    assert.deepEqual(create(VWC, { metadata: { name: 'w' }, webhooks: [hook({})] }), []);
    assert.deepEqual(create(VWC, { metadata: { name: 'w' }, webhooks: [hook({ name: 'check' }), hook({ name: 'check' })] }), [
      'webhooks[0].name: Invalid value: "check": should be a domain with at least three segments separated by dots',
      'webhooks[1].name: Invalid value: "check": should be a domain with at least three segments separated by dots',
      'webhooks[1].name: Duplicate value: "check"',
    ]);
    assert.deepEqual(create(VWC, { metadata: { name: 'w' }, webhooks: [hook({ clientConfig: { url: 'http://example.com' }, sideEffects: undefined, admissionReviewVersions: [] })] }), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
    assert.deepEqual(create(VWC, { metadata: { name: 'w' }, webhooks: [hook({ clientConfig: {} })] }), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
  });
});

describe('quantities in validation', () => {
  it("LimitRange: a quantity out of order is shown as Go's %#v of the parsed Quantity, its String() cached", () => {
    const limits = (l: Obj) => create(target('', 'v1', 'LimitRange'), { metadata: { name: 'l', namespace: 'ns' }, spec: { limits: [{ type: 'Container', ...l }] } });
    assert.deepEqual(limits({ min: { cpu: '0.5' }, max: { cpu: '100m' } }), [
      'spec.limits[0].min[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: min value 500m is greater than max value 100m',
    ]);
  });

  it('parses and prints as the reference does', () => {
    for (const [given, canonical] of [['0.5', '500m'], ['1024Mi', '1Gi'], ['1000', '1k'], ['1.5Gi', '1536Mi'], ['100m', '100m'], ['1e3', '1e3'], ['2', '2'], ['0', '0']]) {
      assert.equal(Quantity.from(given)?.toString(), canonical, given);
    }
    assert.equal(quantityError('1kk'), "unable to parse quantity's suffix");
    assert.equal(quantityError('1.2.3'), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    // A JSON number is a quantity too (the decoder reads its text).
    assert.deepEqual(create(POD, pod({ containers: [container({ resources: { limits: { cpu: 2 } } })] })), []);
  });
});
