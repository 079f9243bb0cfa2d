// Audit annotations of webhook calls, as the reference records them: what each mutating webhook did
// (mutation.webhook.admission.k8s.io/round_R_index_I, patch.webhook.admission.k8s.io/…), which
// failed open, and the webhooks' own auditAnnotations under "<webhook name>/<key>".
import type { AdmissionAttributes } from '../types.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** "prefix/name" with a DNS subdomain prefix and a qualified name, as annotation keys must be. */
function validKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length !== 2) return false;
  const [prefix, name] = parts as [string, string];
  return prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix) && name.length <= 63 && NAME.test(name);
}

/** Adds an annotation unless its key is malformed or already holds another value (then it is dropped). */
export function addAnnotation(attrs: AdmissionAttributes, key: string, value: string): void {
  if (!validKey(key)) return;
  const existing = attrs.annotations[key];
  if (existing !== undefined && existing !== value) return;
  attrs.annotations[key] = value;
}

export function mutationKey(round: number, index: number): string {
  return `mutation.webhook.admission.k8s.io/round_${round}_index_${index}`;
}

export function patchKey(round: number, index: number): string {
  return `patch.webhook.admission.k8s.io/round_${round}_index_${index}`;
}

export function failedOpenMutationKey(round: number, index: number): string {
  return `failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`;
}

export function failedOpenValidatingKey(index: number): string {
  return `failed-open.validating.webhook.admission.k8s.io/round_0_index_${index}`;
}

export function mutationValue(configuration: string, webhook: string, mutated: boolean): string {
  return JSON.stringify({ configuration, webhook, mutated });
}

/** The patch as the reference re-encodes it: each operation's keys sorted. */
export function patchValue(configuration: string, webhook: string, patch: unknown[]): string {
  const sorted = patch.map((op) => {
    if (typeof op !== 'object' || op === null || Array.isArray(op)) return op;
    const entries = Object.entries(op as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
  return JSON.stringify({ configuration, webhook, patch: sorted, patchType: 'JSONPatch' });
}

/** A webhook's own auditAnnotations, each under "<webhook name>/<key>". */
export function addWebhookAnnotations(attrs: AdmissionAttributes, webhook: string, annotations: Record<string, string>): void {
  for (const [k, v] of Object.entries(annotations)) addAnnotation(attrs, `${webhook}/${k}`, v);
}
