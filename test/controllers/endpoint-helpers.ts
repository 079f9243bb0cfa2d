// Pods as the endpoint controllers' tests make them, and their status written as a kubelet would.
import { call, mustOk } from '../helpers.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

export function podBody(name: string, labels: Record<string, string>, ports: Array<{ name?: string; containerPort: number }> = [{ containerPort: 8080 }]) {
  return { metadata: { name, labels }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx', ports }] } };
}

/** Writes a pod's status as a kubelet would: running, with an IP, ready or not. */
export async function setPodStatus(url: string, ns: string, name: string, ip: string, ready: boolean): Promise<void> {
  const condition = { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
  await mustOk(call(url, 'PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
    body: { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [condition] } }, headers: MERGE,
  }));
}

