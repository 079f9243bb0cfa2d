// Defaulting: the values the reference's generated and hand-written defaulters fill in when an
// object is decoded (before ownership is recorded and before admission), and the fields Go's
// encoder writes even when zero (struct values, fields without omitempty, zero times as null),
// which a decoded object shows as well. Rules are per group, version and kind.
import { ADMISSIONREGISTRATION } from './admissionregistration.js';
import { APIEXTENSIONS } from './apiextensions.js';
import { APIREGISTRATION } from './apiregistration.js';
import { APPS } from './apps.js';
import { AUTOSCALING } from './autoscaling.js';
import { BATCH } from './batch.js';
import { COORDINATION } from './coordination.js';
import { CORE } from './core.js';
import { DISCOVERY } from './discovery.js';
import { EVENTS } from './events.js';
import { FLOWCONTROL } from './flowcontrol.js';
import { NETWORKING } from './networking.js';
import { POLICY } from './policy.js';
import { RBAC } from './rbac.js';
import { SCHEDULING } from './scheduling.js';
import { STORAGE } from './storage.js';
import type { DefaulterTable } from './types.js';
import { normalizeQuantities } from './quantities.js';
import { type JsonObject } from '../../json.js';

export interface DefaultingTarget {
  group: string;
  version: string;
  kind: string;
}

const BY_GROUP: Readonly<Record<string, DefaulterTable>> = {
  '': CORE,
  'admissionregistration.k8s.io': ADMISSIONREGISTRATION,
  'apiextensions.k8s.io': APIEXTENSIONS,
  'apiregistration.k8s.io': APIREGISTRATION,
  apps: APPS,
  autoscaling: AUTOSCALING,
  batch: BATCH,
  'coordination.k8s.io': COORDINATION,
  'discovery.k8s.io': DISCOVERY,
  'events.k8s.io': EVENTS,
  'flowcontrol.apiserver.k8s.io': FLOWCONTROL,
  'networking.k8s.io': NETWORKING,
  policy: POLICY,
  'rbac.authorization.k8s.io': RBAC,
  'scheduling.k8s.io': SCHEDULING,
  'storage.k8s.io': STORAGE,
};

/**
 * Fills in the reference's defaults for an object of this kind and version, in place.
 * Idempotent, and never throws: a field of the wrong type is left for validation.
 */
export function applyDefaults(target: DefaultingTarget, obj: JsonObject): void {
  const defaulter = BY_GROUP[target.group]?.[`${target.version}/${target.kind}`];
  defaulter?.(obj);
  normalizeQuantities(target, obj);
}
