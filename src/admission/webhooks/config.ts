// Webhook configurations (admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration) read into the records the dispatchers use, with the v1 defaults
// filled in where a stored object lacks them.
import { clientConfigFrom, type ClientConfig } from '../../registry/webhook-client.js';
import { labelMatcher, type LabelMatcher } from './selector.js';
import { type JsonObject, isObject } from '../../json.js';

export type { ClientConfig, ServiceReference } from '../../registry/webhook-client.js';

export interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** "Cluster", "Namespaced" or "*". */
  scope: string;
}


export interface Webhook {
  /** Unique among the hooks of one kind: configuration, webhook name and position. */
  id: string;
  configurationName: string;
  name: string;
  clientConfig: ClientConfig;
  rules: Rule[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector: LabelMatcher;
  objectSelector: LabelMatcher;
  /** As configured; absent when unset (the dry-run check tells the two apart). */
  sideEffects?: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  /** Mutating webhooks only. */
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

const DEFAULT_TIMEOUT_SECONDS = 10;
const MAX_TIMEOUT_SECONDS = 30;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function ruleOf(raw: unknown): Rule {
  const r = isObject(raw) ? raw : {};
  return {
    operations: strings(r['operations']),
    apiGroups: strings(r['apiGroups']),
    apiVersions: strings(r['apiVersions']),
    resources: strings(r['resources']),
    scope: typeof r['scope'] === 'string' ? r['scope'] : '*',
  };
}

function timeoutOf(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return DEFAULT_TIMEOUT_SECONDS;
  return Math.min(Math.ceil(v), MAX_TIMEOUT_SECONDS);
}

/** The webhooks of one stored configuration, in their order. */
export function webhooksOf(configuration: JsonObject): Webhook[] {
  const meta = isObject(configuration['metadata']) ? configuration['metadata'] : {};
  const configurationName = String(meta['name'] ?? '');
  const list = Array.isArray(configuration['webhooks']) ? configuration['webhooks'] : [];
  return list.map((raw, index) => {
    const w = isObject(raw) ? raw : {};
    const name = String(w['name'] ?? '');
    return {
      id: `${configurationName}/${name}/${index}`,
      configurationName,
      name,
      clientConfig: clientConfigFrom(w['clientConfig']),
      rules: Array.isArray(w['rules']) ? w['rules'].map(ruleOf) : [],
      failurePolicy: w['failurePolicy'] === 'Ignore' ? 'Ignore' : 'Fail',
      matchPolicy: w['matchPolicy'] === 'Exact' ? 'Exact' : 'Equivalent',
      namespaceSelector: labelMatcher(w['namespaceSelector']),
      objectSelector: labelMatcher(w['objectSelector']),
      sideEffects: typeof w['sideEffects'] === 'string' ? w['sideEffects'] : undefined,
      timeoutSeconds: timeoutOf(w['timeoutSeconds']),
      admissionReviewVersions: strings(w['admissionReviewVersions']),
      reinvocationPolicy: w['reinvocationPolicy'] === 'IfNeeded' ? 'IfNeeded' : 'Never',
    };
  });
}
