// Writes of webhook configurations never go to webhooks: a broken webhook could otherwise block
// its own repair.
import type { AdmissionAttributes } from '../types.js';

const CONFIGURATION_KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

export function isWebhookConfiguration(attrs: AdmissionAttributes): boolean {
  return attrs.info.group === 'admissionregistration.k8s.io' && CONFIGURATION_KINDS.has(attrs.info.kind);
}
