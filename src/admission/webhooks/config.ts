// Webhook configurations (admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration) read into the records the dispatchers use, with the v1 defaults
// filled in where a stored object lacks them.
import { labelMatcher, type LabelMatcher } from './selector.js';
import { type JsonObject, isObject } from '../../json.js';

export interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** "Cluster", "Namespaced" or "*". */
  scope: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port: number;
}

export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM certificates to trust (decoded caBundle); the system's roots when absent. */
  caBundle?: string;
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
const DEFAULT_SERVICE_PORT = 443;

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

function clientConfigOf(raw: unknown): ClientConfig {
  const c = isObject(raw) ? raw : {};
  const out: ClientConfig = {};
  if (typeof c['url'] === 'string') out.url = c['url'];
  if (isObject(c['service'])) {
    const s = c['service'];
    out.service = {
      namespace: String(s['namespace'] ?? ''),
      name: String(s['name'] ?? ''),
      path: typeof s['path'] === 'string' ? s['path'] : undefined,
      port: typeof s['port'] === 'number' ? s['port'] : DEFAULT_SERVICE_PORT,
    };
  }
  if (typeof c['caBundle'] === 'string' && c['caBundle'] !== '') out.caBundle = Buffer.from(c['caBundle'], 'base64').toString('utf8');
  return out;
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
      clientConfig: clientConfigOf(w['clientConfig']),
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
