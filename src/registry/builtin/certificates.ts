// certificates.k8s.io: what is special about each of its resources.
import { certificateSigningRequestTable } from '../../api/printers/index.js';
import { certificateSigningRequestFields } from '../../api/selectable-fields.js';
import { validateCertificateSigningRequest, validateCertificateSigningRequestUpdate } from '../../api/validation/certificates.js';
import type { Strategy } from '../strategies.js';
import type { BuiltinGroup } from './types.js';
import { now, type JsonObject, copyJson } from '../../json.js';

/**
 * What each endpoint resets, as the reference's strategies: spec is fixed at creation and status
 * is the subresources', so a main-resource write owns neither (a CSR's creator owns nothing of
 * spec); /status owns all of status but the conditions, /approval only the conditions.
 */
const RESET_FIELDS: Readonly<Record<string, ReadonlyArray<readonly string[]>>> = {
  '': [['spec'], ['status']],
  status: [['spec'], ['status', 'conditions']],
  approval: [['spec'], ['status', 'certificate']],
};

// A CertificateSigningRequest records who asked for it; only the server fills these fields.
const certificateSigningRequestStrategy: Strategy = {
  resetFields: (subresource) => RESET_FIELDS[subresource ?? ''],
  prepareForCreate(obj, user) {
    const spec = (obj['spec'] ?? {}) as JsonObject;
    for (const k of ['username', 'uid', 'groups', 'extra']) delete spec[k];
    spec['username'] = user.name;
    if (user.uid) spec['uid'] = user.uid;
    if (user.groups.length) spec['groups'] = [...user.groups];
    if (user.extra && Object.keys(user.extra).length) spec['extra'] = copyJson(user.extra);
    obj['spec'] = spec;
  },
};

/** Condition times the writer left out: lastUpdateTime now, lastTransitionTime kept while the status stays. */
function conditionTimes(conditions: JsonObject[], previous: unknown): JsonObject[] {
  const before = Array.isArray(previous) ? (previous as JsonObject[]) : [];
  return conditions.map((c) => {
    if (typeof c !== 'object' || c === null) return c;
    const out = { ...c };
    if (!out['lastUpdateTime']) out['lastUpdateTime'] = now();
    if (!out['lastTransitionTime']) {
      const old = before.find((o) => o['type'] === c['type'] && o['status'] === c['status']);
      out['lastTransitionTime'] = old?.['lastTransitionTime'] ?? out['lastUpdateTime'];
    }
    return out;
  });
}

/** certificatesigningrequests/{name}/approval: the Approved / Denied conditions. */
function approval(current: JsonObject, desired: JsonObject): JsonObject {
  const status = { ...((current['status'] ?? {}) as JsonObject) };
  const conditions = ((desired['status'] ?? {}) as JsonObject)['conditions'];
  if (conditions === undefined) delete status['conditions'];
  else status['conditions'] = Array.isArray(conditions) ? conditionTimes(conditions as JsonObject[], status['conditions']) : conditions;
  current['status'] = status;
  return current;
}

export const certificates: BuiltinGroup = {
  name: 'certificates.k8s.io',
  resources: {
    certificatesigningrequests: {
      nameRule: 'path',
      validation: { create: validateCertificateSigningRequest, update: validateCertificateSigningRequestUpdate },
      strategy: certificateSigningRequestStrategy,
      table: certificateSigningRequestTable,
      selectableFields: certificateSigningRequestFields,
      subresourceParts: { approval },
    },
  },
};
