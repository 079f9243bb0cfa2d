// Table printers: the columns and cells of the server-side Table representation
// (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`) of every built-in resource, as the
// reference (kube-apiserver 1.25) renders them. Column definitions (with the OpenAPI field
// descriptions the reference shows) come from data/table-columns.json, extracted from the
// reference's answers by scripts/extract-table-columns.mjs; cells are computed here. One printer
// per resource (the group modules of registry/builtin say which resource prints with which). The
// server renders tables "wide": every column, priority 0 and 1, is in every row.
import { readDataJson } from '../data.js';
import {
  arr,
  bool,
  elapsedSince,
  formatLabels,
  formatLabelSelector,
  get,
  humanDuration,
  intOrString,
  isSet,
  joinHostPort,
  listWithMore,
  num,
  parseTime,
  quantity,
  rec,
  rfc3339,
  since,
  str,
  type Obj,
} from './format.js';
import { podCells, podRowConditions, type RowCondition } from './pod.js';

export { humanDuration } from './format.js';
export { podStatusReason, podRowConditions, type RowCondition } from './pod.js';

export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** A resource's Table: its columns and each object's cells as the reference prints them. */
export interface TablePrinter {
  columns(): TableColumn[];
  /** The cells of one object's row at time `now` (ms). */
  cells(obj: Obj, now: number): unknown[];
  /** Row conditions (`conditions` of a TableRow): only pods have them (Completed when finished). */
  conditions?(obj: Obj): RowCondition[] | undefined;
  /**
   * A Table without rows says `rows: null` (the reference's default convertor appends rows to a
   * nil list); a printer's says `rows: []`.
   */
  nullWhenEmpty?: boolean;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

interface ColumnData {
  default: TableColumn[];
  resources: Record<string, TableColumn[]>;
}

let columnData: ColumnData | undefined;
function data(): ColumnData {
  columnData ??= readDataJson<ColumnData>('table-columns.json');
  return columnData;
}

function nameColumn(): TableColumn {
  return { ...data().default[0]! };
}

function ageColumn(): TableColumn {
  const created = data().default[1]!;
  return { name: 'Age', type: 'string', format: '', description: created.description, priority: 0 };
}

const column = (name: string, description: string): TableColumn => ({ name, type: 'string', format: '', description, priority: 0 });

/** The columns of printers the reference fixtures do not show (no recorded Table): written here. */
const COMPONENT_STATUS_COLUMNS = (): TableColumn[] => [
  nameColumn(),
  column('Status', 'Status of the component conditions'),
  column('Message', 'Message of the component conditions'),
  column('Error', 'Error of the component conditions'),
];

const API_SERVICE_COLUMNS = (): TableColumn[] => [
  nameColumn(),
  column('Service', 'The reference to the service that hosts this API endpoint.'),
  column('Available', 'Whether this service is available.'),
  ageColumn(),
];

type Printer = (obj: Obj, now: number) => unknown[];

/** A printer whose columns are those of the reference's recorded Table of `groupResource` ("group/resource"). */
function recorded(groupResource: string, cells: Printer): TablePrinter {
  return { columns: () => data().resources[groupResource]!.map((c) => ({ ...c })), cells };
}

/** A printer whose columns are written here. */
function written(columns: () => TableColumn[], cells: Printer): TablePrinter {
  return { columns, cells };
}

const name = (obj: Obj): string => str(get(obj, 'metadata', 'name'));
const age = (obj: Obj, now: number): string => since(get(obj, 'metadata', 'creationTimestamp'), now);

/** Names and images of a pod spec's containers, comma-separated. */
function containerCells(podSpec: unknown): [string, string] {
  const containers = arr(get(podSpec, 'containers'));
  return [containers.map((c) => str(get(c, 'name'))).join(','), containers.map((c) => str(get(c, 'image'))).join(',')];
}

function templateSpec(obj: Obj): unknown {
  return get(obj, 'spec', 'template', 'spec');
}

const ACCESS_MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

function accessModes(modes: unknown): string {
  const list = arr(modes);
  return ACCESS_MODES.filter(([mode]) => list.includes(mode))
    .map(([, short]) => short)
    .join(',');
}

function storageClassOf(obj: Obj): string {
  const beta = get(obj, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class');
  if (typeof beta === 'string') return beta;
  return str(get(obj, 'spec', 'storageClassName'));
}

function loadBalancerIngress(status: unknown): string {
  const out: string[] = [];
  for (const ing of arr(get(status, 'ingress'))) {
    const ip = str(get(ing, 'ip'));
    const host = str(get(ing, 'hostname'));
    if (ip !== '') out.push(ip);
    else if (host !== '') out.push(host);
  }
  return out.join(',');
}

function serviceExternalIP(svc: Obj): string {
  const spec = rec(svc.spec);
  const externalIPs = arr(spec.externalIPs).map((v) => str(v));
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(get(svc, 'status', 'loadBalancer'));
      if (externalIPs.length > 0) return [...(lb !== '' ? lb.split(',') : []), ...externalIPs].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function servicePorts(svc: Obj): string {
  const out: string[] = [];
  for (const p of arr(get(svc, 'spec', 'ports'))) {
    const port = num(get(p, 'port'));
    const protocol = str(get(p, 'protocol'));
    const nodePort = num(get(p, 'nodePort'));
    out.push(nodePort > 0 ? `${port}:${nodePort}/${protocol}` : `${port}/${protocol}`);
  }
  return out.length === 0 ? '<none>' : out.join(',');
}

function formatEndpoints(ep: Obj): string {
  const subsets = arr(ep.subsets);
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let count = 0;
  for (const ss of subsets) {
    const addresses = arr(get(ss, 'addresses'));
    const ports = arr(get(ss, 'ports'));
    if (ports.length === 0) {
      for (const a of addresses) {
        if (list.length < max) list.push(str(get(a, 'ip')));
        count++;
      }
    } else {
      for (const p of ports) {
        for (const a of addresses) {
          if (list.length < max) list.push(joinHostPort(str(get(a, 'ip')), num(get(p, 'port'))));
          count++;
        }
      }
    }
  }
  const ret = list.join(',');
  return count > max ? `${ret} + ${count - max} more...` : ret;
}

function sliceCells(obj: Obj, now: number): unknown[] {
  const ports = arr(obj.ports);
  const portList: string[] = [];
  for (const p of ports) {
    const port = get(p, 'port');
    const pname = get(p, 'name');
    portList.push(isSet(port) ? String(num(port)) : isSet(pname) ? str(pname) : '*');
  }
  const addrs: string[] = [];
  for (const e of arr(obj.endpoints)) for (const a of arr(get(e, 'addresses'))) addrs.push(str(a));
  return [name(obj), str(obj.addressType), listWithMore(portList, portList.length, 3), listWithMore(addrs, addrs.length, 3), age(obj, now)];
}

function ingressHosts(rules: unknown[]): string {
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const r of rules) {
    if (list.length === max) more = true;
    const host = str(get(r, 'host'));
    if (!more && host !== '') list.push(host);
  }
  if (list.length === 0) return '*';
  const ret = list.join(',');
  return more ? `${ret} + ${rules.length - max} more...` : ret;
}

function nodeCells(node: Obj, now: number): unknown[] {
  const status: string[] = [];
  let readyCond: unknown;
  for (const c of arr(get(node, 'status', 'conditions'))) if (get(c, 'type') === 'Ready') readyCond = c;
  if (readyCond !== undefined) status.push(get(readyCond, 'status') === 'True' ? 'Ready' : 'NotReady');
  if (status.length === 0) status.push('Unknown');
  if (get(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(rec(get(node, 'metadata', 'labels')))) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && str(v) !== '') {
      roles.add(str(v));
    }
  }
  const address = (type: string): string => {
    for (const a of arr(get(node, 'status', 'addresses'))) if (get(a, 'type') === type) return str(get(a, 'address'));
    return '<none>';
  };
  const info = rec(get(node, 'status', 'nodeInfo'));
  return [
    name(node),
    status.join(','),
    roles.size === 0 ? '<none>' : [...roles].sort().join(','),
    age(node, now),
    str(info.kubeletVersion),
    address('InternalIP'),
    address('ExternalIP'),
    str(info.osImage) || '<unknown>',
    str(info.kernelVersion) || '<unknown>',
    str(info.containerRuntimeVersion) || '<unknown>',
  ];
}

/** An events.k8s.io/v1 Event in the shape of a core/v1 Event (the one the printer reads). */
function coreEvent(obj: Obj): Obj {
  if (!str(obj.apiVersion).startsWith('events.k8s.io/')) return obj;
  return {
    ...obj,
    involvedObject: obj.regarding,
    message: obj.note,
    source: obj.deprecatedSource,
    firstTimestamp: obj.deprecatedFirstTimestamp,
    lastTimestamp: obj.deprecatedLastTimestamp,
    count: obj.deprecatedCount,
    reportingComponent: obj.reportingController,
  };
}

function eventCells(input: Obj, now: number): unknown[] {
  const ev = coreEvent(input);
  let first = since(ev.firstTimestamp, now);
  if (parseTime(ev.firstTimestamp) === undefined) first = since(ev.eventTime, now);
  let last = since(ev.lastTimestamp, now);
  if (parseTime(ev.lastTimestamp) === undefined) last = first;
  let count = num(ev.count);
  if (isSet(ev.series) && typeof ev.series === 'object') {
    last = since(get(ev.series, 'lastObservedTime'), now);
    count = num(get(ev.series, 'count'));
  } else if (count === 0) {
    count = 1; // singleton events of the new API carry no count
  }
  const kind = str(get(ev, 'involvedObject', 'kind')).toLowerCase();
  const objName = str(get(ev, 'involvedObject', 'name'));
  const target = objName !== '' ? `${kind}/${objName}` : kind;
  const component = str(get(ev, 'source', 'component')) || str(ev.reportingComponent);
  const host = str(get(ev, 'source', 'host')) || str(ev.reportingInstance);
  const source = host === '' ? component : `${component}, ${host}`;
  return [
    last,
    str(ev.type),
    str(ev.reason),
    target,
    str(get(ev, 'involvedObject', 'fieldPath')),
    source,
    str(ev.message).trim(),
    first,
    count,
    name(ev),
  ];
}

interface MetricSpec {
  type?: string;
  [k: string]: unknown;
}

/** An autoscaling/v1 HPA's metrics in the v2 shape (the CPU target and its current value). */
function hpaMetrics(hpa: Obj): { specs: MetricSpec[]; statuses: unknown[] } {
  const spec = rec(hpa.spec);
  if (str(hpa.apiVersion) === 'autoscaling/v1' || (isSet(spec.targetCPUUtilizationPercentage) && !isSet(spec.metrics))) {
    const specs: MetricSpec[] = [];
    const statuses: unknown[] = [];
    const fromAnnotation = (key: string): unknown[] => {
      const text = get(hpa, 'metadata', 'annotations', key);
      if (typeof text !== 'string') return [];
      try {
        const parsed: unknown = JSON.parse(text);
        return Array.isArray(parsed) ? parsed : [];
      } catch {
        return [];
      }
    };
    if (isSet(spec.targetCPUUtilizationPercentage)) {
      specs.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
      const current = get(hpa, 'status', 'currentCPUUtilizationPercentage');
      statuses.push(isSet(current) ? { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: current } } } : {});
    }
    // Other metrics of a v1 object ride in alpha annotations (v2beta1 shapes; best effort).
    for (const m of fromAnnotation('autoscaling.alpha.kubernetes.io/metrics')) specs.push(rec(m) as MetricSpec);
    return { specs, statuses };
  }
  return { specs: arr(spec.metrics).map((m) => rec(m) as MetricSpec), statuses: arr(get(hpa, 'status', 'currentMetrics')) };
}

function formatHPAMetrics(hpa: Obj): string {
  const { specs, statuses } = hpaMetrics(hpa);
  if (specs.length === 0) return '<none>';
  const list: string[] = [];
  const max = 2;
  const statusOf = (i: number, field: string): unknown => (statuses.length > i ? get(statuses[i], field) : undefined);
  specs.forEach((spec, i) => {
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const field = spec.type === 'External' ? 'external' : 'object';
        const target = get(spec, field, 'target');
        const st = statusOf(i, field);
        if (isSet(get(target, 'averageValue'))) {
          const cur = isSet(st) && isSet(get(st, 'current', 'averageValue')) ? quantity(get(st, 'current', 'averageValue')) : '<unknown>';
          list.push(`${cur}/${quantity(get(target, 'averageValue'))} (avg)`);
        } else {
          const cur = isSet(st) ? quantity(get(st, 'current', 'value')) : '<unknown>';
          list.push(`${cur}/${quantity(get(target, 'value'))}`);
        }
        break;
      }
      case 'Pods': {
        const st = statusOf(i, 'pods');
        const cur = isSet(st) ? quantity(get(st, 'current', 'averageValue')) : '<unknown>';
        list.push(`${cur}/${quantity(get(spec, 'pods', 'target', 'averageValue'))}`);
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const field = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const target = get(spec, field, 'target');
        const st = statusOf(i, field);
        if (isSet(get(target, 'averageValue'))) {
          const cur = isSet(st) ? quantity(get(st, 'current', 'averageValue')) : '<unknown>';
          list.push(`${cur}/${quantity(get(target, 'averageValue'))}`);
        } else {
          const curUtil = get(st, 'current', 'averageUtilization');
          const cur = isSet(st) && isSet(curUtil) ? `${num(curUtil)}%` : '<unknown>';
          const util = get(target, 'averageUtilization');
          const tgt = isSet(util) ? `${num(util)}%` : '<auto>';
          list.push(`${cur}/${tgt}`);
        }
        break;
      }
      default:
        list.push('<unknown type>');
    }
  });
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

function resourceQuotaCells(obj: Obj, now: number): unknown[] {
  const hard = rec(get(obj, 'status', 'hard'));
  const used = rec(get(obj, 'status', 'used'));
  const requests: string[] = [];
  const limits: string[] = [];
  for (const resource of Object.keys(hard).sort()) {
    const pieces = resource.split('.');
    const entry = `${resource}: ${quantity(used[resource])}/${quantity(hard[resource])}`;
    if (pieces.length > 1 && pieces[0] === 'limits') limits.push(entry);
    else requests.push(entry);
  }
  return [name(obj), age(obj, now), requests.join(', '), limits.join(', ')];
}

function controllerOf(obj: Obj): string {
  for (const ref of arr(get(obj, 'metadata', 'ownerReferences'))) {
    if (get(ref, 'controller') !== true) continue;
    const apiVersion = str(get(ref, 'apiVersion'));
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const kind = str(get(ref, 'kind'));
    const refName = str(get(ref, 'name'));
    if (kind === '' && group === '') return refName;
    return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${refName}`;
  }
  return '<none>';
}

function bindingCells(obj: Obj, now: number): unknown[] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of arr(obj.subjects)) {
    switch (get(s, 'kind')) {
      case 'User':
        users.push(str(get(s, 'name')));
        break;
      case 'Group':
        groups.push(str(get(s, 'name')));
        break;
      case 'ServiceAccount':
        sas.push(`${str(get(s, 'namespace'))}/${str(get(s, 'name'))}`);
        break;
    }
  }
  return [
    name(obj),
    `${str(get(obj, 'roleRef', 'kind'))}/${str(get(obj, 'roleRef', 'name'))}`,
    age(obj, now),
    users.join(', '),
    groups.join(', '),
    sas.join(', '),
  ];
}

function csrCondition(obj: Obj): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of arr(get(obj, 'status', 'conditions'))) {
    switch (get(c, 'type')) {
      case 'Approved':
        approved = true;
        break;
      case 'Denied':
        denied = true;
        break;
      case 'Failed':
        failed = true;
        break;
      default:
        return ''; // an unknown condition: the reference fails to print the row
    }
  }
  let status = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) status += ',Failed';
  if (str(get(obj, 'status', 'certificate')) !== '') status += ',Issued';
  return status;
}

/** NAME, DESIRED, CURRENT, READY, AGE, CONTAINERS, IMAGES, SELECTOR. */
function replicaCells(o: Obj, now: number, selector: string): unknown[] {
  const [containers, images] = containerCells(templateSpec(o));
  return [name(o), num(get(o, 'spec', 'replicas'), 1), num(get(o, 'status', 'replicas')), num(get(o, 'status', 'readyReplicas')), age(o, now), containers, images, selector];
}

export const podTable: TablePrinter = { ...recorded('/pods', podCells), conditions: podRowConditions };
export const podTemplateTable = recorded('/podtemplates', (o) => {
  const [containers, images] = containerCells(get(o, 'template', 'spec'));
  return [name(o), containers, images, formatLabels(get(o, 'template', 'metadata', 'labels'))];
});

// ReplicationControllers select with a plain map, ReplicaSets with a LabelSelector.
export const replicationControllerTable = recorded('/replicationcontrollers', (o, now) => replicaCells(o, now, formatLabels(get(o, 'spec', 'selector'))));

export const serviceTable = recorded('/services', (o, now) => {
  const spec = rec(o.spec);
  const ips = arr(spec.clusterIPs);
  let clusterIP = ips.length > 0 ? str(ips[0]) : str(spec.clusterIP);
  if (clusterIP === '') clusterIP = '<none>';
  return [name(o), str(spec.type), clusterIP, serviceExternalIP(o), servicePorts(o), age(o, now), formatLabels(spec.selector)];
});

export const endpointsTable = recorded('/endpoints', (o, now) => [name(o), formatEndpoints(o), age(o, now)]);

export const nodeTable = recorded('/nodes', nodeCells);

export const coreEventTable = recorded('/events', eventCells);

export const namespaceTable = recorded('/namespaces', (o, now) => [name(o), str(get(o, 'status', 'phase')), age(o, now)]);

export const secretTable = recorded('/secrets', (o, now) => [name(o), str(o.type), Object.keys(rec(o.data)).length, age(o, now)]);

export const serviceAccountTable = recorded('/serviceaccounts', (o, now) => [name(o), arr(o.secrets).length, age(o, now)]);

export const persistentVolumeTable = recorded('/persistentvolumes', (o, now) => {
  const ref = get(o, 'spec', 'claimRef');
  const claim = isSet(ref) ? `${str(get(ref, 'namespace'))}/${str(get(ref, 'name'))}` : '';
  const phase = isSet(get(o, 'metadata', 'deletionTimestamp')) ? 'Terminating' : str(get(o, 'status', 'phase'));
  const mode = get(o, 'spec', 'volumeMode');
  return [
    name(o),
    quantity(get(o, 'spec', 'capacity', 'storage')),
    accessModes(get(o, 'spec', 'accessModes')),
    str(get(o, 'spec', 'persistentVolumeReclaimPolicy')),
    phase,
    claim,
    storageClassOf(o),
    str(get(o, 'status', 'reason')),
    age(o, now),
    isSet(mode) ? str(mode) : '<unset>',
  ];
});

export const persistentVolumeClaimTable = recorded('/persistentvolumeclaims', (o, now) => {
  const phase = isSet(get(o, 'metadata', 'deletionTimestamp')) ? 'Terminating' : str(get(o, 'status', 'phase'));
  const volumeName = str(get(o, 'spec', 'volumeName'));
  let capacity = '';
  let modes = '';
  if (volumeName !== '') {
    modes = accessModes(get(o, 'status', 'accessModes'));
    capacity = quantity(get(o, 'status', 'capacity', 'storage'));
  }
  const mode = get(o, 'spec', 'volumeMode');
  return [name(o), phase, volumeName, capacity, modes, storageClassOf(o), age(o, now), isSet(mode) ? str(mode) : '<unset>'];
});

export const componentStatusTable = written(COMPONENT_STATUS_COLUMNS, (o) => {
  let status = 'Unknown';
  let message = '';
  let error = '';
  for (const c of arr(o.conditions)) {
    if (get(c, 'type') !== 'Healthy') continue;
    status = get(c, 'status') === 'True' ? 'Healthy' : 'Unhealthy';
    message = str(get(c, 'message'));
    error = str(get(c, 'error'));
    break;
  }
  return [name(o), status, message, error];
});

export const configMapTable = recorded('/configmaps', (o, now) => [name(o), Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length, age(o, now)]);

export const resourceQuotaTable = recorded('/resourcequotas', resourceQuotaCells);

export const deploymentTable = recorded('apps/deployments', (o, now) => {
  const [containers, images] = containerCells(templateSpec(o));
  return [
    name(o),
    `${num(get(o, 'status', 'readyReplicas'))}/${num(get(o, 'spec', 'replicas'), 1)}`,
    num(get(o, 'status', 'updatedReplicas')),
    num(get(o, 'status', 'availableReplicas')),
    age(o, now),
    containers,
    images,
    formatLabelSelector(get(o, 'spec', 'selector')),
  ];
});

export const replicaSetTable = recorded('apps/replicasets', (o, now) => replicaCells(o, now, formatLabelSelector(get(o, 'spec', 'selector'))));

export const statefulSetTable = recorded('apps/statefulsets', (o, now) => {
  const [containers, images] = containerCells(templateSpec(o));
  return [name(o), `${num(get(o, 'status', 'readyReplicas'))}/${num(get(o, 'spec', 'replicas'), 1)}`, age(o, now), containers, images];
});

export const daemonSetTable = recorded('apps/daemonsets', (o, now) => {
  const [containers, images] = containerCells(templateSpec(o));
  const st = rec(o.status);
  return [
    name(o),
    num(st.desiredNumberScheduled),
    num(st.currentNumberScheduled),
    num(st.numberReady),
    num(st.updatedNumberScheduled),
    num(st.numberAvailable),
    formatLabels(get(templateSpec(o), 'nodeSelector')),
    age(o, now),
    containers,
    images,
    formatLabelSelector(get(o, 'spec', 'selector')),
  ];
});

export const controllerRevisionTable = recorded('apps/controllerrevisions', (o, now) => [name(o), controllerOf(o), num(o.revision), age(o, now)]);

export const jobTable = recorded('batch/jobs', (o, now) => {
  const spec = rec(o.spec);
  const succeeded = num(get(o, 'status', 'succeeded'));
  let completions: string;
  if (isSet(spec.completions)) completions = `${succeeded}/${num(spec.completions)}`;
  else {
    const parallelism = num(spec.parallelism);
    completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
  }
  const start = parseTime(get(o, 'status', 'startTime'));
  const end = parseTime(get(o, 'status', 'completionTime'));
  const duration = start === undefined ? '' : end !== undefined ? humanDuration(end - start) : elapsedSince(start, now);
  const [containers, images] = containerCells(templateSpec(o));
  return [name(o), completions, duration, age(o, now), containers, images, formatLabelSelector(spec.selector)];
});

export const cronJobTable = recorded('batch/cronjobs', (o, now) => {
  const spec = rec(o.spec);
  const suspend = spec.suspend;
  const last = get(o, 'status', 'lastScheduleTime');
  const [containers, images] = containerCells(get(spec, 'jobTemplate', 'spec', 'template', 'spec'));
  return [
    name(o),
    str(spec.schedule),
    typeof suspend === 'boolean' ? (suspend ? 'True' : 'False') : '<unset>',
    arr(get(o, 'status', 'active')).length,
    isSet(last) ? since(last, now) : '<none>',
    age(o, now),
    containers,
    images,
    formatLabelSelector(get(spec, 'jobTemplate', 'spec', 'selector')),
  ];
});

export const horizontalPodAutoscalerTable = recorded('autoscaling/horizontalpodautoscalers', (o, now) => {
  const spec = rec(o.spec);
  return [
    name(o),
    `${str(get(spec, 'scaleTargetRef', 'kind'))}/${str(get(spec, 'scaleTargetRef', 'name'))}`,
    formatHPAMetrics(o),
    isSet(spec.minReplicas) ? String(num(spec.minReplicas)) : '<unset>',
    num(spec.maxReplicas),
    num(get(o, 'status', 'currentReplicas')),
    age(o, now),
  ];
});

export const podDisruptionBudgetTable = recorded('policy/poddisruptionbudgets', (o, now) => {
  const spec = rec(o.spec);
  return [
    name(o),
    isSet(spec.minAvailable) ? intOrString(spec.minAvailable) : 'N/A',
    isSet(spec.maxUnavailable) ? intOrString(spec.maxUnavailable) : 'N/A',
    num(get(o, 'status', 'disruptionsAllowed')),
    age(o, now),
  ];
});

export const ingressTable = recorded('networking.k8s.io/ingresses', (o, now) => {
  const spec = rec(o.spec);
  return [
    name(o),
    isSet(spec.ingressClassName) ? str(spec.ingressClassName) : '<none>',
    ingressHosts(arr(spec.rules)),
    loadBalancerIngress(get(o, 'status', 'loadBalancer')),
    arr(spec.tls).length > 0 ? '80, 443' : '80',
    age(o, now),
  ];
});

export const ingressClassTable = recorded('networking.k8s.io/ingressclasses', (o, now) => {
  const params = get(o, 'spec', 'parameters');
  let parameters = '<none>';
  if (isSet(params)) {
    parameters = str(get(params, 'kind'));
    if (isSet(get(params, 'apiGroup'))) parameters += `.${str(get(params, 'apiGroup'))}`;
    parameters += `/${str(get(params, 'name'))}`;
  }
  return [name(o), str(get(o, 'spec', 'controller')), parameters, age(o, now)];
});

export const networkPolicyTable = recorded('networking.k8s.io/networkpolicies', (o, now) => [name(o), formatLabelSelector(get(o, 'spec', 'podSelector') ?? {}), age(o, now)]);

export const endpointSliceTable = recorded('discovery.k8s.io/endpointslices', sliceCells);

export const eventTable = recorded('events.k8s.io/events', eventCells);

export const roleBindingTable = recorded('rbac.authorization.k8s.io/rolebindings', bindingCells);

export const clusterRoleBindingTable = recorded('rbac.authorization.k8s.io/clusterrolebindings', bindingCells);

export const certificateSigningRequestTable = recorded('certificates.k8s.io/certificatesigningrequests', (o, now) => {
  const spec = rec(o.spec);
  const signer = str(spec.signerName);
  return [
    name(o),
    age(o, now),
    signer === '' ? '<none>' : signer,
    str(spec.username),
    isSet(spec.expirationSeconds) ? humanDuration(num(spec.expirationSeconds) * 1000) : '<none>',
    csrCondition(o),
  ];
});

export const leaseTable = recorded('coordination.k8s.io/leases', (o, now) => [name(o), str(get(o, 'spec', 'holderIdentity')), age(o, now)]);

export const storageClassTable = recorded('storage.k8s.io/storageclasses', (o, now) => {
  const annotations = rec(get(o, 'metadata', 'annotations'));
  const isDefault =
    annotations['storageclass.kubernetes.io/is-default-class'] === 'true' || annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  return [
    isDefault ? `${name(o)} (default)` : name(o),
    str(o.provisioner),
    isSet(o.reclaimPolicy) ? str(o.reclaimPolicy) : 'Delete',
    isSet(o.volumeBindingMode) ? str(o.volumeBindingMode) : 'Immediate',
    bool(o.allowVolumeExpansion),
    age(o, now),
  ];
});

export const csiNodeTable = recorded('storage.k8s.io/csinodes', (o, now) => [name(o), arr(get(o, 'spec', 'drivers')).length, age(o, now)]);

export const csiDriverTable = recorded('storage.k8s.io/csidrivers', (o, now) => {
  const spec = rec(o.spec);
  const tokenRequests = isSet(spec.tokenRequests) ? arr(spec.tokenRequests).map((t) => str(get(t, 'audience'))).join(',') : '<unset>';
  const modes = arr(spec.volumeLifecycleModes).map((m) => str(m)).join(',');
  return [
    name(o),
    bool(spec.attachRequired, true),
    bool(spec.podInfoOnMount),
    bool(spec.storageCapacity),
    tokenRequests,
    bool(spec.requiresRepublish),
    modes === '' ? '<none>' : modes,
    age(o, now),
  ];
});

export const volumeAttachmentTable = recorded('storage.k8s.io/volumeattachments', (o, now) => [
  name(o),
  str(get(o, 'spec', 'attacher')),
  str(get(o, 'spec', 'source', 'persistentVolumeName')),
  str(get(o, 'spec', 'nodeName')),
  bool(get(o, 'status', 'attached')),
  age(o, now),
]);

export const priorityClassTable = recorded('scheduling.k8s.io/priorityclasses', (o, now) => [name(o), num(o.value), bool(o.globalDefault), age(o, now)]);

export const runtimeClassTable = recorded('node.k8s.io/runtimeclasses', (o, now) => [name(o), str(o.handler), age(o, now)]);

const webhookConfigurationCells: Printer = (o, now) => [name(o), arr(o.webhooks).length, age(o, now)];

export const mutatingWebhookConfigurationTable = recorded('admissionregistration.k8s.io/mutatingwebhookconfigurations', webhookConfigurationCells);

export const validatingWebhookConfigurationTable = recorded('admissionregistration.k8s.io/validatingwebhookconfigurations', webhookConfigurationCells);

export const flowSchemaTable = recorded('flowcontrol.apiserver.k8s.io/flowschemas', (o, now) => {
  const spec = rec(o.spec);
  const method = get(spec, 'distinguisherMethod');
  let missing = '?';
  for (const c of arr(get(o, 'status', 'conditions'))) {
    if (get(c, 'type') === 'Dangling') {
      missing = str(get(c, 'status'));
      break;
    }
  }
  return [
    name(o),
    str(get(spec, 'priorityLevelConfiguration', 'name')),
    num(spec.matchingPrecedence),
    isSet(method) ? str(get(method, 'type')) : '<none>',
    age(o, now),
    missing,
  ];
});

export const priorityLevelConfigurationTable = recorded('flowcontrol.apiserver.k8s.io/prioritylevelconfigurations', (o, now) => {
  const spec = rec(o.spec);
  let acs: unknown = '<none>';
  let queues: unknown = '<none>';
  let handSize: unknown = '<none>';
  let queueLengthLimit: unknown = '<none>';
  const limited = spec.limited;
  if (isSet(limited)) {
    acs = num(get(limited, 'assuredConcurrencyShares'));
    const q = get(limited, 'limitResponse', 'queuing');
    if (isSet(q)) {
      queues = num(get(q, 'queues'));
      handSize = num(get(q, 'handSize'));
      queueLengthLimit = num(get(q, 'queueLengthLimit'));
    }
  }
  return [name(o), str(spec.type), acs, queues, handSize, queueLengthLimit, age(o, now)];
});

export const apiServiceTable = written(API_SERVICE_COLUMNS, (o, now) => {
  const svc = get(o, 'spec', 'service');
  const service = isSet(svc) ? `${str(get(svc, 'namespace'))}/${str(get(svc, 'name'))}` : 'Local';
  let available = 'Unknown';
  for (const c of arr(get(o, 'status', 'conditions'))) {
    if (get(c, 'type') !== 'Available') continue;
    const status = str(get(c, 'status'));
    const reason = str(get(c, 'reason'));
    available = status !== 'True' && reason !== '' ? `${status} (${reason})` : status;
    break;
  }
  return [name(o), service, available, age(o, now)];
});

/** The Table of a resource without a printer of its own: Name and Created At. */
export const defaultTablePrinter: TablePrinter = {
  columns: () => data().default.map((c) => ({ ...c })),
  cells: (obj) => [name(obj), rfc3339(get(obj, 'metadata', 'creationTimestamp'))],
  nullWhenEmpty: true,
};
