// The admin kubeconfig a started server hands out: it trusts the server's CA and authenticates
// with the system:masters client certificate (or, on plain HTTP, names no credentials at all).
import type { ServingMaterial } from './certs.js';

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

/** The kubeconfig as YAML, for kubectl and every client library. */
export function adminKubeconfig(server: string, material: ServingMaterial | undefined): string {
  const cluster = material
    ? `    server: ${server}\n    certificate-authority-data: ${b64(material.caCert)}`
    : `    server: ${server}\n    # Plain HTTP (--insecure-serving): client libraries refuse http:// without this.\n    insecure-skip-tls-verify: true`;
  const user = material ? `\n    client-certificate-data: ${b64(material.adminCert)}\n    client-key-data: ${b64(material.adminKey)}` : ' {}';
  return `apiVersion: v1
kind: Config
clusters:
- name: capstan
  cluster:
${cluster}
users:
- name: admin
  user:${user}
contexts:
- name: capstan
  context:
    cluster: capstan
    user: admin
    namespace: default
current-context: capstan
`;
}
