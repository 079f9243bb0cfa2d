// The implemented admission plugins; the chain runs those enabled, in the reference's order.
import type { AdmissionPlugin } from '../types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from '../webhooks/index.js';
import { LimitRangerAdmission } from './limit-ranger.js';
import { ResourceQuotaAdmission } from './resource-quota.js';

import { alwaysAdmit } from './always-admit.js';
import { alwaysDeny } from './always-deny.js';
import { alwaysPullImages } from './always-pull-images.js';
import { certificateApproval } from './certificate-approval.js';
import { certificateSigning } from './certificate-signing.js';
import { certificateSubjectRestriction } from './certificate-subject-restriction.js';
import { defaultIngressClass } from './default-ingress-class.js';
import { defaultStorageClass } from './default-storage-class.js';
import { defaultTolerationSeconds } from './default-toleration-seconds.js';
import { denyServiceExternalIPs } from './deny-service-external-ips.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import { persistentVolumeClaimResize } from './persistent-volume-claim-resize.js';
import { podSecurity } from './pod-security/index.js';
import { priority } from './priority.js';
import { runtimeClass } from './runtime-class.js';
import { serviceAccount } from './service-account.js';
import { storageObjectInUseProtection } from './storage-object-in-use-protection.js';
import { taintNodesByCondition } from './taint-nodes-by-condition.js';


export function builtinPlugins(): AdmissionPlugin[] {
  return [
    alwaysAdmit, namespaceLifecycle, new LimitRangerAdmission(), serviceAccount, taintNodesByCondition, alwaysPullImages, podSecurity, priority,
    defaultTolerationSeconds, defaultStorageClass, storageObjectInUseProtection, persistentVolumeClaimResize, runtimeClass,
    certificateApproval, certificateSigning, certificateSubjectRestriction, defaultIngressClass, denyServiceExternalIPs,
    mutatingAdmissionWebhook(), validatingAdmissionWebhook(), new ResourceQuotaAdmission(), alwaysDeny,
  ];
}
