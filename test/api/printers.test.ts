// Table printers against the reference's recorded Table answers (test/fixtures/reference/table), plus
// unit tests of the pod status logic, human durations and selector formatting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultTablePrinter, humanDuration, podStatusReason, type TablePrinter } from '../../src/api/printers/index.js';
import { formatLabelSelector } from '../../src/api/printers/format.js';
import { builtinHooks, referenceDir } from '../helpers.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures are untyped

/** The Table the server renders for a resource: its printer, else the default. */
const tableOf = (group: string, resource: string): TablePrinter => builtinHooks(group, resource).table ?? defaultTablePrinter;
const columnsFor = (group: string, resource: string) => tableOf(group, resource).columns();
const cellsFor = (group: string, resource: string, obj: Json, now: number) => tableOf(group, resource).cells(obj, now);

const read = (rel: string): Json => JSON.parse(readFileSync(path.join(referenceDir, rel), 'utf8'));

/** The time every `<time>` placeholder of a fixture object is replaced with; rows are printed 5 s later. */
const T0 = '2024-05-01T12:00:00Z';
const NOW = Date.parse(T0) + 5000;

function withTimes(v: Json): Json {
  if (v === '<time>') return T0;
  if (Array.isArray(v)) return v.map(withTimes);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withTimes(x)]));
  if (typeof v === 'string' && v.includes('<node-port>')) return v;
  return v;
}

/** nodePort placeholders (strings) become a real port so that the cell can be computed. */
function withNodePorts(obj: Json): Json {
  for (const p of obj?.spec?.ports ?? []) if (p.nodePort === '<node-port>') p.nodePort = 30080;
  return obj;
}

const AGE = '(?:\\d+y(?:\\d+d)?|\\d+d(?:\\d+h)?|\\d+h(?:\\d+m)?|\\d+m(?:\\d+s)?|\\d+s)';
const PLACEHOLDERS: Record<string, string> = {
  '<age>': AGE,
  '<time>': '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z',
  '<uid>': '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  '<cluster-ip>': '\\d+\\.\\d+\\.\\d+\\.\\d+|[0-9a-f:]+',
  '<node-port>': '\\d+',
  '<suffix>': '[a-z0-9]{5}',
};
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether an actual cell matches the expected one, a placeholder standing for any value of its kind (or itself). */
function cellMatches(expected: unknown, actual: unknown): boolean {
  if (typeof expected !== 'string' || !/<(age|time|uid|cluster-ip|node-port|suffix)>/.test(expected)) {
    return JSON.stringify(expected) === JSON.stringify(actual);
  }
  if (typeof actual !== 'string') return false;
  const source = expected
    .split(/(<(?:age|time|uid|cluster-ip|node-port|suffix)>)/)
    .map((part) => (part in PLACEHOLDERS ? `(?:${PLACEHOLDERS[part]}|${escape(part)})` : escape(part)))
    .join('');
  return new RegExp(`^${source}$`).test(actual);
}

function assertCells(expected: unknown[], actual: unknown[], what: string): void {
  const ok = expected.length === actual.length && expected.every((e, i) => cellMatches(e, actual[i]));
  if (!ok) assert.fail(`${what}: cells differ\n  expected ${JSON.stringify(expected)}\n  actual   ${JSON.stringify(actual)}`);
}

interface Target {
  file: string;
  group: string;
  version: string;
  resource: string;
}

function targetOf(file: string, fixture: Json): Target {
  const parts = (fixture.request.path as string).split('?')[0]!.split('/');
  if (parts[1] === 'api') return { file, group: '', version: parts[2]!, resource: parts[parts.length - 1]! };
  return { file, group: parts[2]!, version: parts[3]!, resource: parts[parts.length - 1]! };
}

const tableFiles = readdirSync(path.join(referenceDir, 'table'))
  .filter((f) => f.endsWith('.json') && !f.startsWith('kubectl-') && !f.startsWith('ref.example.com-'))
  .sort();
const createFiles = readdirSync(path.join(referenceDir, 'create')).filter((f) => f.endsWith('.json'));

/** Objects the recorder created (create/), by group/resource and name; the same group-version first. */
function createdObject(t: Target, objName: string): Json | undefined {
  const groups = [t.group];
  if (t.resource === 'events') groups.push(t.group === '' ? 'events.k8s.io' : ''); // the same Event, seen through the other API
  const candidates: string[] = [];
  for (const g of groups) {
    const gp = g === '' ? 'core' : g;
    // create/<group>-<version>-<resource>[-<variant>].json; the fixture's own version first
    const files = createFiles.filter((f) => {
      const parts = f.slice(0, -'.json'.length).split('-');
      return parts[0] === gp && parts[2] === t.resource;
    });
    files.sort((a, b) => Number(!a.startsWith(`${gp}-${t.version}-`)) - Number(!b.startsWith(`${gp}-${t.version}-`)));
    candidates.push(...files);
  }
  for (const f of candidates) {
    const body = read(`create/${f}`).response.body;
    if (body?.metadata?.name === objName && body.kind !== 'TokenRequest') return body;
  }
  return undefined;
}

/** Full objects of the include-object fixtures (pods, deployments). */
function includedObject(t: Target, objName: string): Json | undefined {
  const f = `${t.group === '' ? 'core' : t.group}-${t.version}-${t.resource}-include-object.json`;
  if (!existsSync(path.join(referenceDir, 'table', f))) return undefined;
  const row = (read(`table/${f}`).response.body.rows as Json[]).find((r) => r.object?.metadata?.name === objName);
  return row?.object;
}

/**
 * What controllers changed on created objects before the table was recorded (~8 s later): the
 * create answer is the object as first stored, the table shows it after its controllers acted.
 */
const CONTROLLER_UPDATES: Record<string, (o: Json) => void> = {
  'apps/replicasets/frontend': (o) => (o.status = { replicas: 1, fullyLabeledReplicas: 1, observedGeneration: 1 }),
  '/replicationcontrollers/nginx-rc': (o) => (o.status = { replicas: 1, fullyLabeledReplicas: 1, observedGeneration: 1 }),
  'batch/jobs/pi': (o) => (o.status = { startTime: T0, active: 1 }),
  '/persistentvolumeclaims/data': (o) => {
    o.spec.volumeName = 'ref-pv-1';
    o.status = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
  },
  '/persistentvolumes/ref-pv-1': (o) => {
    o.spec.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'ref-create', name: 'data', apiVersion: 'v1' };
    o.status = { phase: 'Bound' };
  },
  '/resourcequotas/compute-quota': (o) => (o.status = { hard: o.spec.hard, used: { pods: '0', 'requests.cpu': '0', 'requests.memory': '0' } }),
  '/secrets/builder-token': (o) => (o.data = { 'ca.crt': 'x', namespace: 'x', token: 'x' }),
  'flowcontrol.apiserver.k8s.io/flowschemas/ref-fs-v1beta1': (o) => (o.status = { conditions: [{ type: 'Dangling', status: 'False' }] }),
  'flowcontrol.apiserver.k8s.io/flowschemas/ref-fs-v1beta2': (o) => (o.status = { conditions: [{ type: 'Dangling', status: 'False' }] }),
};

/**
 * Controller-made objects the fixtures have no full copy of, rebuilt by hand from what the
 * controllers write (owner references, an empty Endpoints, a slice without ports, a controller
 * Event), so that those printer paths are checked too.
 */
const ownedBy = (apiVersion: string, kind: string, ownerName: string): Json => [{ apiVersion, kind, name: ownerName, uid: '<uid>', controller: true, blockOwnerDeletion: true }];
const meta = (objName: string, extra: Json = {}): Json => ({ name: objName, namespace: 'ref-create', uid: '<uid>', creationTimestamp: T0, ...extra });
const RECONSTRUCTED: Record<string, Json> = {
  'apps/controllerrevisions/log-agent-fb5d6f459': { metadata: meta('log-agent-fb5d6f459', { ownerReferences: ownedBy('apps/v1', 'DaemonSet', 'log-agent') }), revision: 1 },
  'apps/controllerrevisions/web-85bcd66f99': { metadata: meta('web-85bcd66f99', { ownerReferences: ownedBy('apps/v1', 'StatefulSet', 'web') }), revision: 1 },
  '/configmaps/kube-root-ca.crt': { metadata: meta('kube-root-ca.crt'), data: { 'ca.crt': '<redacted>' } },
  '/serviceaccounts/default': { metadata: meta('default') },
  '/endpoints/web': { metadata: meta('web') },
  'discovery.k8s.io/endpointslices/web-<suffix>': {
    metadata: meta('web-<suffix>', { generateName: 'web-', ownerReferences: ownedBy('v1', 'Service', 'web') }),
    addressType: 'IPv4',
    endpoints: null,
    ports: null,
  },
  '/events/frontend.<suffix>': {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta('frontend.<suffix>'),
    involvedObject: { kind: 'ReplicaSet', namespace: 'ref-create', name: 'frontend', uid: '<uid>', apiVersion: 'apps/v1', resourceVersion: '<rv>' },
    reason: 'SuccessfulCreate',
    message: 'Created pod: frontend-<suffix>',
    source: { component: 'replicaset-controller' },
    firstTimestamp: T0,
    lastTimestamp: T0,
    count: 1,
    type: 'Normal',
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
  },
  'events.k8s.io/events/web.<suffix>': {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: meta('web.<suffix>'),
    eventTime: null,
    reason: 'SuccessfulCreate',
    regarding: { kind: 'StatefulSet', namespace: 'ref-create', name: 'web', uid: '<uid>', apiVersion: 'apps/v1', resourceVersion: '<rv>' },
    note: 'create Pod web-0 in StatefulSet web successful',
    type: 'Normal',
    deprecatedSource: { component: 'statefulset-controller' },
    deprecatedFirstTimestamp: T0,
    deprecatedLastTimestamp: T0,
    deprecatedCount: 1,
  },
};

let totalRows = 0;
let testedRows = 0;

for (const file of tableFiles) {
  const fixture = read(`table/${file}`);
  const t = targetOf(file, fixture);
  const body = fixture.response.body;

  test(`table/${file}: columns`, () => {
    assert.deepEqual(columnsFor(t.group, t.resource), body.columnDefinitions);
  });

  test(`table/${file}: cells`, () => {
    let tested = 0;
    for (const row of body.rows as Json[]) {
      totalRows++;
      const meta = row.object?.metadata;
      const rowName: string = meta?.name ?? row.cells[t.resource === 'events' ? 9 : 0];
      let full: Json =
        row.object && row.object.kind !== 'PartialObjectMetadata'
          ? row.object
          : (includedObject(t, rowName) ?? createdObject(t, rowName) ?? RECONSTRUCTED[`${t.group}/${t.resource}/${rowName}`]);
      if (!full) {
        if (process.env.PRINTERS_VERBOSE) console.log(`skip ${file} ${rowName}`);
        continue; // made by a controller: no full object recorded
      }
      full = withNodePorts(withTimes(structuredClone(full)));
      CONTROLLER_UPDATES[`${t.group}/${t.resource}/${rowName}`]?.(full);
      assertCells(row.cells, cellsFor(t.group, t.resource, full, NOW), `${file} row ${rowName}`);
      tested++;
      testedRows++;
    }
    assert.ok(tested > 0, `${file}: no row could be tested`);
  });
}

test('fixture coverage summary', () => {
  // Runs after the fixture tests (node:test runs top-level tests in order).
  assert.ok(testedRows > 0);
  console.log(`printers: ${testedRows} of ${totalRows} fixture rows tested (${tableFiles.length} tables)`);
});

test('humanDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [-5 * s, '<invalid>'],
    [-1 * s, '0s'],
    [-500, '0s'],
    [0, '0s'],
    [5 * s, '5s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [3 * m + 2 * s, '3m2s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 5 * m, '3h5m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [24 * h, '24h'],
    [47 * h + 59 * m, '47h'],
    [2 * d, '2d'],
    [2 * d + 3 * h, '2d3h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [730 * d + 30 * d, '2y30d'],
    [8 * 365 * d, '8y'],
    [20 * 365 * d + 100 * d, '20y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `humanDuration(${ms})`);
});

function pod(status: Json, extra: Json = {}): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', creationTimestamp: T0, ...(extra.metadata ?? {}) },
    spec: { containers: [{ name: 'a', image: 'a' }], ...(extra.spec ?? {}) },
    status,
  };
}

test('pod status: phases, waiting and terminated reasons', () => {
  assert.equal(podStatusReason(pod({ phase: 'Pending' })), 'Pending');
  assert.equal(podStatusReason(pod({ phase: 'Failed', reason: 'Evicted' })), 'Evicted');
  assert.equal(
    podStatusReason(pod({ phase: 'Pending', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] })),
    'ContainerCreating',
  );
  assert.equal(
    podStatusReason(pod({ phase: 'Running', containerStatuses: [{ name: 'a', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] })),
    'CrashLoopBackOff',
  );
  assert.equal(
    podStatusReason(pod({ phase: 'Succeeded', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })),
    'Completed',
  );
  assert.equal(podStatusReason(pod({ phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 2 } } }] })), 'ExitCode:2');
  assert.equal(podStatusReason(pod({ phase: 'Failed', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 137, signal: 9 } } }] })), 'Signal:9');
});

test('pod status: init containers', () => {
  const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }] };
  const done = { name: 'i1', state: { terminated: { exitCode: 0, reason: 'Completed' } } };
  assert.equal(podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [done, { name: 'i2', state: { running: {} } }] }, { spec })), 'Init:1/2');
  assert.equal(
    podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { waiting: { reason: 'PodInitializing' } } }] }, { spec })),
    'Init:0/2',
  );
  assert.equal(
    podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { waiting: { reason: 'ImagePullBackOff' } } }] }, { spec })),
    'Init:ImagePullBackOff',
  );
  assert.equal(podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } }] }, { spec })), 'Init:Error');
  assert.equal(podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 3 } } }] }, { spec })), 'Init:ExitCode:3');
  assert.equal(podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 3, signal: 15 } } }] }, { spec })), 'Init:Signal:15');
  // All init containers done: the regular containers decide.
  assert.equal(
    podStatusReason(pod({ phase: 'Pending', initContainerStatuses: [done], containerStatuses: [{ name: 'a', state: { waiting: { reason: 'ContainerCreating' } } }] }, { spec: { initContainers: [{ name: 'i1' }] } })),
    'ContainerCreating',
  );
});

test('pod status: Completed with a container still running, Terminating, NodeLost', () => {
  const statuses = [
    { name: 'a', ready: true, restartCount: 0, state: { running: { startedAt: T0 } } },
    { name: 'b', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
  ];
  const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
  assert.equal(podStatusReason(pod({ phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'False' }] }, { spec })), 'NotReady');
  assert.equal(podStatusReason(pod({ phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'True' }] }, { spec })), 'Running');
  assert.equal(podStatusReason(pod({ phase: 'Running' }, { metadata: { deletionTimestamp: T0 } })), 'Terminating');
  assert.equal(podStatusReason(pod({ phase: 'Running', reason: 'NodeLost' }, { metadata: { deletionTimestamp: T0 } })), 'Unknown');
  assert.equal(podStatusReason(pod({ phase: 'Running', reason: 'NodeLost' })), 'NodeLost');
});

test('pod cells: ready count, restarts with the last restart, IP, node, readiness gates', () => {
  const now = Date.parse(T0) + 3600_000;
  const p = pod(
    {
      phase: 'Running',
      podIP: '10.0.0.5',
      podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
      nominatedNodeName: 'n2',
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'example.com/gate', status: 'True' },
      ],
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-05-01T12:55:00Z' } } },
        { name: 'b', ready: false, restartCount: 3, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-05-01T12:30:00Z' } } },
      ],
    },
    {
      spec: {
        nodeName: 'n1',
        containers: [{ name: 'a' }, { name: 'b' }],
        readinessGates: [{ conditionType: 'example.com/gate' }, { conditionType: 'example.com/other' }],
      },
    },
  );
  assert.deepEqual(cellsFor('', 'pods', p, now), ['p', '1/2', 'Running', '5 (5m ago)', '60m', '10.0.0.5', 'n1', 'n2', '1/2']);
  assert.deepEqual(tableOf('', 'pods').conditions!(p), undefined);
  assert.deepEqual(tableOf('', 'pods').conditions!(pod({ phase: 'Succeeded' })), [
    { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
  ]);
});

test('services: load balancer, external IPs, node ports', () => {
  const svc = (spec: Json, status: Json = {}): Json => ({ metadata: { name: 's', creationTimestamp: T0 }, spec, status });
  const lbSpec = { type: 'LoadBalancer', clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'], ports: [{ port: 80, protocol: 'TCP', nodePort: 31000 }, { port: 53, protocol: 'UDP', nodePort: 31001 }], selector: { b: '2', a: '1' } };
  assert.deepEqual(cellsFor('', 'services', svc(lbSpec), NOW), ['s', 'LoadBalancer', '10.96.0.9', '<pending>', '80:31000/TCP,53:31001/UDP', '5s', 'a=1,b=2']);
  assert.equal(cellsFor('', 'services', svc(lbSpec, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com' }] } }), NOW)[3], '1.2.3.4,lb.example.com');
  assert.equal(cellsFor('', 'services', svc({ ...lbSpec, externalIPs: ['5.6.7.8'] }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }), NOW)[3], '1.2.3.4,5.6.7.8');
  assert.equal(cellsFor('', 'services', svc({ type: 'ClusterIP', clusterIPs: ['10.96.0.1'], externalIPs: ['9.9.9.9'] }), NOW)[3], '9.9.9.9');
});

test('label selectors', () => {
  assert.equal(formatLabelSelector(undefined), '<none>');
  assert.equal(formatLabelSelector({}), '<none>');
  assert.equal(
    formatLabelSelector({
      matchLabels: { z: '1', a: '2' },
      matchExpressions: [
        { key: 'm', operator: 'In', values: ['y', 'x'] },
        { key: 'n', operator: 'NotIn', values: ['q'] },
        { key: 'e', operator: 'Exists' },
        { key: 'f', operator: 'DoesNotExist' },
      ],
    }),
    'a=2,e,!f,m in (x,y),n notin (q),z=1',
  );
  assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'm', operator: 'In', values: [] }] }), '<error>');
});

test('events: series, eventTime, events.k8s.io shape', () => {
  const core = {
    apiVersion: 'v1',
    metadata: { name: 'e1', creationTimestamp: T0 },
    involvedObject: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{a}' },
    reason: 'BackOff',
    message: ' Back-off restarting \n',
    type: 'Warning',
    source: { component: 'kubelet', host: 'n1' },
    firstTimestamp: '2024-05-01T11:00:00Z',
    lastTimestamp: '2024-05-01T11:59:00Z',
    count: 7,
  };
  assert.deepEqual(cellsFor('', 'events', core, NOW), ['65s', 'Warning', 'BackOff', 'pod/p', 'spec.containers{a}', 'kubelet, n1', 'Back-off restarting', '60m', 7, 'e1']);
  const v1 = {
    apiVersion: 'events.k8s.io/v1',
    metadata: { name: 'e2', creationTimestamp: T0 },
    eventTime: '2024-05-01T11:58:00.123456Z',
    series: { count: 3, lastObservedTime: '2024-05-01T11:59:30.000000Z' },
    reportingController: 'ctrl',
    regarding: { kind: 'Node', name: '' },
    note: 'hi',
    type: 'Normal',
    reason: 'R',
  };
  assert.deepEqual(cellsFor('events.k8s.io', 'events', v1, NOW), ['35s', 'Normal', 'R', 'node', '', 'ctrl', 'hi', '2m4s', 3, 'e2']);
});

test('resources without a printer: Name and Created At', () => {
  const cols = columnsFor('rbac.authorization.k8s.io', 'roles');
  assert.deepEqual(
    cols.map((c) => [c.name, c.type, c.format]),
    [
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ],
  );
  assert.deepEqual(columnsFor('example.com', 'things'), cols);
  assert.deepEqual(cellsFor('example.com', 'things', { metadata: { name: 'x', creationTimestamp: '2024-05-01T12:00:00Z' } }, NOW), ['x', '2024-05-01T12:00:00Z']);
});

test('printers the fixtures do not show: componentstatuses, apiservices', () => {
  assert.deepEqual(
    columnsFor('', 'componentstatuses').map((c) => c.name),
    ['Name', 'Status', 'Message', 'Error'],
  );
  assert.deepEqual(cellsFor('', 'componentstatuses', { metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }, NOW), ['etcd-0', 'Healthy', 'ok', '']);
  assert.deepEqual(
    columnsFor('apiregistration.k8s.io', 'apiservices').map((c) => c.name),
    ['Name', 'Service', 'Available', 'Age'],
  );
  assert.deepEqual(
    cellsFor(
      'apiregistration.k8s.io',
      'apiservices',
      { metadata: { name: 'v1beta1.metrics.k8s.io', creationTimestamp: T0 }, spec: { service: { namespace: 'kube-system', name: 'metrics-server' } }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] } },
      NOW,
    ),
    ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (MissingEndpoints)', '5s'],
  );
});
