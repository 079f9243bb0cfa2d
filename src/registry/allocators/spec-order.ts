// Field order of a Service's spec and ports as the reference serializes them (its Go structs), so
// that fields the allocators add land where clients expect them rather than at the end.
import { isObject, type JsonObject } from '../../json.js';

const SPEC_ORDER = [
  'ports', 'selector', 'clusterIP', 'clusterIPs', 'type', 'externalIPs', 'sessionAffinity', 'loadBalancerIP',
  'loadBalancerSourceRanges', 'externalName', 'externalTrafficPolicy', 'healthCheckNodePort', 'publishNotReadyAddresses',
  'sessionAffinityConfig', 'ipFamilies', 'ipFamilyPolicy', 'allocateLoadBalancerNodePorts', 'loadBalancerClass',
  'internalTrafficPolicy',
];
const PORT_ORDER = ['name', 'protocol', 'appProtocol', 'port', 'targetPort', 'nodePort'];

function ordered(obj: JsonObject, order: string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of order) if (k in obj) out[k] = obj[k];
  for (const k of Object.keys(obj)) if (!(k in out)) out[k] = obj[k];
  return out;
}

export function orderServiceSpec(svc: JsonObject): void {
  const spec = svc['spec'];
  if (!isObject(spec)) return;
  const next = ordered(spec, SPEC_ORDER);
  if (Array.isArray(next['ports'])) next['ports'] = next['ports'].map((p) => (isObject(p) ? ordered(p, PORT_ORDER) : p));
  svc['spec'] = next;
}
