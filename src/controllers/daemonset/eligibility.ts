// Which nodes a DaemonSet's pod belongs on, as the reference's NodeShouldRunDaemonPod: the
// template's nodeName, nodeSelector and required node affinity must match the node, and its
// tolerations (with those the reference adds to every daemon pod) must tolerate the node's
// NoSchedule and NoExecute taints. A pod whose only untolerated taints are NoSchedule may stay.
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject } from '../../json.js';

export interface Placement {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/** The tolerations the reference adds to every daemon pod (network-unavailable only with hostNetwork). */
export function daemonTolerations(podSpec: JsonObject): JsonObject[] {
  const added: JsonObject[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (podSpec['hostNetwork'] === true) added.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return added;
}

/** The pod spec's tolerations with the daemon ones added or updated (same key and effect), as the reference's. */
export function withDaemonTolerations(podSpec: JsonObject): JsonObject[] {
  const tolerations = Array.isArray(podSpec['tolerations']) ? podSpec['tolerations'].filter(isObject).map((t) => ({ ...t })) : [];
  for (const add of daemonTolerations(podSpec)) {
    const i = tolerations.findIndex((t) => t['key'] === add['key'] && t['effect'] === add['effect'] && (t['operator'] ?? 'Equal') === add['operator']);
    if (i >= 0) tolerations[i] = add;
    else tolerations.push(add);
  }
  return tolerations;
}

export function tolerates(toleration: JsonObject, taint: JsonObject): boolean {
  if (toleration['effect'] && toleration['effect'] !== taint['effect']) return false;
  const operator = toleration['operator'] ?? 'Equal';
  if (operator === 'Exists') return !toleration['key'] || toleration['key'] === taint['key'];
  return toleration['key'] === taint['key'] && (toleration['value'] ?? '') === (taint['value'] ?? '');
}

function requirementMatches(req: JsonObject, value: string | undefined): boolean {
  const values = Array.isArray(req['values']) ? (req['values'] as unknown[]).map(String) : [];
  switch (req['operator']) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0]!)) return false;
      return req['operator'] === 'Gt' ? BigInt(value) > BigInt(values[0]!) : BigInt(value) < BigInt(values[0]!);
    }
    default: return false;
  }
}

/** A node selector term: every expression on the labels and every field (only metadata.name) matches; an empty term matches nothing. */
function termMatches(term: JsonObject, node: JsonObject): boolean {
  const expressions = Array.isArray(term['matchExpressions']) ? term['matchExpressions'].filter(isObject) : [];
  const fields = Array.isArray(term['matchFields']) ? term['matchFields'].filter(isObject) : [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = (metadataOf(node)['labels'] ?? {}) as Record<string, string>;
  return expressions.every((e) => requirementMatches(e, labels[String(e['key'])]))
    && fields.every((f) => f['key'] === 'metadata.name' && requirementMatches(f, String(metadataOf(node)['name'])));
}

/** The template's nodeSelector and required node affinity against the node. */
export function matchesNode(podSpec: JsonObject, node: JsonObject): boolean {
  const labels = (metadataOf(node)['labels'] ?? {}) as Record<string, string>;
  const selector = isObject(podSpec['nodeSelector']) ? podSpec['nodeSelector'] : {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const affinity = isObject(podSpec['affinity']) && isObject(podSpec['affinity']['nodeAffinity']) ? podSpec['affinity']['nodeAffinity'] : {};
  const required = isObject(affinity['requiredDuringSchedulingIgnoredDuringExecution']) ? affinity['requiredDuringSchedulingIgnoredDuringExecution'] : undefined;
  if (!required) return true;
  const terms = Array.isArray(required['nodeSelectorTerms']) ? required['nodeSelectorTerms'].filter(isObject) : [];
  return terms.some((t) => termMatches(t, node));
}

export function placement(template: JsonObject, node: JsonObject): Placement {
  const podSpec = isObject(template['spec']) ? template['spec'] : {};
  const name = String(metadataOf(node)['name']);
  if (podSpec['nodeName'] && podSpec['nodeName'] !== name) return { shouldRun: false, shouldContinueRunning: false };
  if (!matchesNode(podSpec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const tolerations = withDaemonTolerations(podSpec);
  const nodeSpec = isObject(node['spec']) ? node['spec'] : {};
  const taints = (Array.isArray(nodeSpec['taints']) ? nodeSpec['taints'].filter(isObject) : [])
    .filter((t) => t['effect'] === 'NoSchedule' || t['effect'] === 'NoExecute');
  const untolerated = taints.filter((t) => !tolerations.some((tol) => tolerates(tol, t)));
  if (untolerated.length === 0) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: untolerated.every((t) => t['effect'] !== 'NoExecute') };
}

/** The pod's spec pinned to a node by required node affinity `metadata.name In [node]`, as the reference does (in place). */
export function pinToNode(podSpec: JsonObject, nodeName: string): void {
  const affinity = isObject(podSpec['affinity']) ? podSpec['affinity'] : (podSpec['affinity'] = {});
  const nodeAffinity = isObject(affinity['nodeAffinity']) ? affinity['nodeAffinity'] : (affinity['nodeAffinity'] = {});
  nodeAffinity['requiredDuringSchedulingIgnoredDuringExecution'] = {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
  };
}

/** The node a daemon pod is for: its nodeName, or the single name its node affinity pins it to. */
export function targetNode(pod: JsonObject): string | undefined {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  if (typeof spec['nodeName'] === 'string' && spec['nodeName']) return spec['nodeName'];
  const affinity = isObject(spec['affinity']) && isObject(spec['affinity']['nodeAffinity']) ? spec['affinity']['nodeAffinity'] : {};
  const required = isObject(affinity['requiredDuringSchedulingIgnoredDuringExecution']) ? affinity['requiredDuringSchedulingIgnoredDuringExecution'] : {};
  const terms = Array.isArray(required['nodeSelectorTerms']) ? required['nodeSelectorTerms'].filter(isObject) : [];
  for (const term of terms) {
    const fields = Array.isArray(term['matchFields']) ? term['matchFields'].filter(isObject) : [];
    for (const f of fields) {
      if (f['key'] === 'metadata.name' && f['operator'] === 'In' && Array.isArray(f['values']) && f['values'].length === 1) return String(f['values'][0]);
    }
  }
  return undefined;
}
