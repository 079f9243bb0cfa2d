// The implemented admission plugins; the chain runs those enabled, in the reference's order.
import type { AdmissionPlugin } from '../types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from '../webhooks/index.js';
import { LimitRangerAdmission } from './limit-ranger.js';
import { ResourceQuotaAdmission } from './resource-quota.js';

export function builtinPlugins(): AdmissionPlugin[] {
  return [
    new LimitRangerAdmission(),
    mutatingAdmissionWebhook(),
    validatingAdmissionWebhook(),
    new ResourceQuotaAdmission(),
  ];
}
