// The implemented admission plugins; the chain runs those enabled, in the reference's order.
import type { AdmissionPlugin } from '../types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from '../webhooks/index.js';

export function builtinPlugins(): AdmissionPlugin[] {
  return [
    mutatingAdmissionWebhook(),
    validatingAdmissionWebhook(),
  ];
}
