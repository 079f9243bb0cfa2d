// Registering a test extension server with capstan: its Service, Endpoints and APIService.
import type { ClientTls } from '../helpers.js';
import { call, mustOk } from '../helpers.js';
import type { ExtensionServer } from './extension-server.js';

export const NAMESPACE = 'kube-system';
export const SERVICE = 'metrics-server';

export async function registerExtension(base: string, tls: ClientTls, ext: ExtensionServer, caBundle = true): Promise<void> {
  await mustOk(call(base, 'POST', `/api/v1/namespaces/${NAMESPACE}/services`, {
    tls, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: SERVICE }, spec: { ports: [{ name: 'https', port: 443, targetPort: 'https' }] } },
  }), 201);
  await mustOk(call(base, 'POST', `/api/v1/namespaces/${NAMESPACE}/endpoints`, {
    tls, body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: SERVICE }, subsets: [{ addresses: [{ ip: ext.host }], ports: [{ name: 'https', port: ext.port }] }] },
  }), 201);
  await mustOk(call(base, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    tls,
    body: {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' },
      spec: {
        group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100,
        service: { namespace: NAMESPACE, name: SERVICE },
        ...(caBundle ? { caBundle: Buffer.from(ext.ca.cert).toString('base64') } : { insecureSkipTLSVerify: true }),
      },
    },
  }), 201);
}

/** The Available condition of an APIService now. */
export async function availableOf(base: string, tls: ClientTls, name: string): Promise<{ status?: string; reason?: string; message?: string } | undefined> {
  const r = await call(base, 'GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { tls });
  const conditions = (r.json?.status?.conditions ?? []) as Array<{ type: string; status: string; reason: string; message: string }>;
  return conditions.find((c) => c.type === 'Available');
}
