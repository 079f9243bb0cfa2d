// Defaults of networking.k8s.io/v1.
import { ensureObject, objectAt, objectsAt, setIfNil, type Obj } from './fields.js';

/** Every policy affects Ingress; one with egress rules affects Egress too. Ports default to TCP. */
export function defaultNetworkPolicy(policy: Obj): void {
  const spec = ensureObject(policy, 'spec');
  if (!spec) return;
  // A struct value, written {} (select every pod) when empty.
  setIfNil(spec, 'podSelector', {});
  for (const direction of ['ingress', 'egress']) {
    for (const rule of objectsAt(spec, direction)) for (const port of objectsAt(rule, 'ports')) setIfNil(port, 'protocol', 'TCP');
  }
  const types = spec['policyTypes'];
  if (types === undefined || types === null || (Array.isArray(types) && types.length === 0)) {
    const egress = spec['egress'];
    spec['policyTypes'] = Array.isArray(egress) && egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

export function defaultIngress(ingress: Obj): void {
  ensureObject(ingress, 'spec');
  const status = ensureObject(ingress, 'status');
  if (status) setIfNil(status, 'loadBalancer', {});
}

export function defaultIngressClass(ingressClass: Obj): void {
  const spec = ensureObject(ingressClass, 'spec');
  const parameters = spec && objectAt(spec, 'parameters');
  if (parameters) setIfNil(parameters, 'scope', 'Cluster');
}
