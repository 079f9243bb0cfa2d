// TaintNodesByCondition: a new Node starts tainted not-ready (NoSchedule), so nothing is scheduled
// onto it before its kubelet reports it ready and the node controller lifts the taint.
import type { AdmissionPlugin } from '../types.js';
import { arrayOf, child, isResource, objectOf, objectsOf, setOrdered } from './support.js';

const NOT_READY = 'node.kubernetes.io/not-ready';
const NODE_SPEC_ORDER = ['podCIDR', 'podCIDRs', 'providerID', 'unschedulable', 'taints', 'configSource', 'externalID'];

export const taintNodesByCondition: AdmissionPlugin = {
  name: 'TaintNodesByCondition',
  operations: ['CREATE'],
  mutate(a) {
    if (a.subresource || !isResource(a, '', 'nodes')) return;
    const node = objectOf(a.object);
    if (!node) return;
    const spec = child(node, 'spec');
    // A taint matches another of the same key and effect.
    if (objectsOf(spec['taints']).some((t) => t['key'] === NOT_READY && t['effect'] === 'NoSchedule')) return;
    setOrdered(spec, 'taints', [...arrayOf(spec['taints']), { key: NOT_READY, effect: 'NoSchedule' }], NODE_SPEC_ORDER);
  },
};
