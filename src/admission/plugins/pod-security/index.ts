// PodSecurity: the Pod Security Standards, per namespace (its pod-security.kubernetes.io labels).
// Pods that violate the enforced level are refused; violations of the audit level go to the audit
// annotations and of the warn level to Warning headers, for pods and for workloads' pod templates.
// Relabelling a namespace to a stricter enforce level warns about its existing pods that would fail.
import { internalError, invalid, type FieldError } from '../../../errors.js';
import type { Registry } from '../../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../types.js';
import { forbiddenNamed, isResource, labelsOf, listObjects, objectOf, readObject, stringOf, type JsonObject } from '../support.js';
import { evaluatePod, forbiddenDetail, forbiddenReason, type Evaluation } from './evaluator.js';
import {
  compareLevels, LABEL_PREFIX, levelVersionString, policyFromLabels, sameLevelVersion, type LevelVersion, type Policy,
} from './policy.js';

/** Pod subresources that cannot change what the pod runs. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);
/** How many existing pods a namespace relabel checks at most. */
const MAX_PODS_TO_CHECK = 3000;

export const podSecurity: AdmissionPlugin = {
  name: 'PodSecurity',
  operations: ['CREATE', 'UPDATE'],
  async validate(a, { registry }) {
    if (isResource(a, '', 'namespaces')) return validateNamespace(a, registry);
    if (isResource(a, '', 'pods')) return validatePod(a, registry);
    if (a.info.definition.hooks.podTemplate) return validateWorkload(a, registry);
  },
};

/** Label errors as the reference's error aggregate prints them ("" when none). */
function labelErrorsText(errors: FieldError[]): string {
  const list = errors.map((e) => `${e.field}: ${e.detail}`);
  return list.length === 1 ? list[0]! : list.length ? `[${list.join(', ')}]` : '';
}

async function validateNamespace(a: AdmissionAttributes, registry: Registry): Promise<void> {
  const ns = objectOf(a.object);
  if (a.subresource || !ns) return;
  const next = policyFromLabels(labelsOf(ns));
  if (a.operation === 'CREATE') {
    if (next.errors.length) throw invalid('Namespace', '', a.name, next.errors);
    return;
  }
  const previous = policyFromLabels(labelsOf(objectOf(a.oldObject)));
  // Labels that were already wrong the same way do not block other changes.
  if (next.errors.length && (!previous.errors.length || labelErrorsText(next.errors) !== labelErrorsText(previous.errors))) {
    throw invalid('Namespace', '', a.name, next.errors);
  }
  const before = previous.policy.enforce;
  const after = next.policy.enforce;
  if (sameLevelVersion(before, after) || after.level === 'privileged') return;
  if (before.version.minor === after.version.minor && compareLevels(after.level, before.level) < 1) return;
  a.warnings.push(...await existingPodWarnings(registry, a.name, after));
}

/** Warnings naming the namespace's pods that the new enforce level would refuse, grouped by what they violate. */
async function existingPodWarnings(registry: Registry, namespace: string, enforce: LevelVersion): Promise<string[]> {
  const pods = await listObjects(registry, '', 'pods', namespace);
  const checked = pods.slice(0, MAX_PODS_TO_CHECK);
  const byReason = new Map<string, { first: string; count: number }>();
  for (const pod of checked) {
    const result = evaluatePod(enforce, objectOf(pod['metadata']) ?? {}, objectOf(pod['spec']) ?? {});
    if (result.allowed) continue;
    const name = stringOf(objectOf(pod['metadata'])?.['name']) ?? '';
    const reason = forbiddenReason(result);
    const seen = byReason.get(reason);
    if (!seen) byReason.set(reason, { first: name, count: 1 });
    else {
      seen.count++;
      if (name < seen.first) seen.first = name;
    }
  }
  const warnings: string[] = [];
  if (checked.length < pods.length) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${pods.length} existing pods`);
  if (byReason.size) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
  const perPod = [...byReason].map(([reason, { first, count }]) => {
    if (count === 1) return `${first}: ${reason}`;
    return `${first} (and ${count - 1} other ${count === 2 ? 'pod' : 'pods'}): ${reason}`;
  });
  return [...warnings, ...perPod.sort()];
}

/** The namespace's policy and the errors of its labels; 500 when the namespace cannot be read. */
async function namespacePolicy(a: AdmissionAttributes, registry: Registry): Promise<{ policy: Policy; labelErrors?: string }> {
  const ns = await readObject(registry, '', 'namespaces', undefined, a.namespace ?? '');
  if (!ns) throw internalError(`failed to lookup namespace ${JSON.stringify(a.namespace)}: namespaces ${JSON.stringify(a.namespace)} not found`);
  const { policy, errors } = policyFromLabels(labelsOf(ns));
  return { policy, labelErrors: labelErrorsText(errors) || undefined };
}

async function validatePod(a: AdmissionAttributes, registry: Registry): Promise<void> {
  if (a.subresource && IGNORED_POD_SUBRESOURCES.has(a.subresource)) return;
  const pod = objectOf(a.object);
  if (!pod) return;
  const { policy, labelErrors } = await namespacePolicy(a, registry);
  if (!labelErrors && policy.enforce.level === 'privileged' && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') {
    // The reference's answer for a fully privileged namespace still names the policy to the audit event.
    a.annotations[`${LABEL_PREFIX}enforce-policy`] = 'privileged:latest';
    return;
  }
  if (a.operation === 'UPDATE' && !isSignificantPodUpdate(pod, objectOf(a.oldObject) ?? {})) return;
  evaluate(a, policy, labelErrors, objectOf(pod['metadata']) ?? {}, objectOf(pod['spec']) ?? {}, true);
}

async function validateWorkload(a: AdmissionAttributes, registry: Registry): Promise<void> {
  const obj = objectOf(a.object);
  if (a.subresource || !obj) return;
  const { policy, labelErrors } = await namespacePolicy(a, registry);
  if (!labelErrors && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') return;
  const template = a.info.definition.hooks.podTemplate?.(obj);
  if (template) evaluate(a, policy, labelErrors, template.metadata, template.spec, false);
}

/** Enforce (pods only), audit and warn; one evaluation per distinct level and version. */
function evaluate(a: AdmissionAttributes, policy: Policy, labelErrors: string | undefined, metadata: JsonObject, spec: JsonObject, enforce: boolean): void {
  const annotate = (key: string, value: string) => { a.annotations[LABEL_PREFIX + key] = value; };
  if (labelErrors) annotate('error', `Failed to parse policy: ${labelErrors}`);
  const results: Array<[LevelVersion, Evaluation]> = [];
  const evaluationOf = (lv: LevelVersion) => {
    const cached = results.find(([k]) => sameLevelVersion(k, lv));
    if (cached) return cached[1];
    const result = evaluatePod(lv, metadata, spec);
    results.push([lv, result]);
    return result;
  };
  let refusal: Error | undefined;
  if (enforce) {
    annotate('enforce-policy', levelVersionString(policy.enforce));
    const result = evaluationOf(policy.enforce);
    if (!result.allowed) {
      // The reference names the request's name here, which a generateName create does not have.
      refusal = forbiddenNamed(a, a.name, `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(result)}`);
    }
  }
  const audit = evaluationOf(policy.audit);
  if (!audit.allowed) annotate('audit-violations', `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${forbiddenDetail(audit)}`);
  if (refusal) throw refusal;
  const warn = evaluationOf(policy.warn);
  if (!warn.allowed) a.warnings.push(`would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${forbiddenDetail(warn)}`);
}

/** Whether an update changes what PodSecurity looks at (validation allows little else to change). */
function isSignificantPodUpdate(pod: JsonObject, old: JsonObject): boolean {
  const annotations = objectOf(objectOf(pod['metadata'])?.['annotations']) ?? {};
  const oldAnnotations = objectOf(objectOf(old['metadata'])?.['annotations']) ?? {};
  const seccompPod = 'seccomp.security.alpha.kubernetes.io/pod';
  if (annotations[seccompPod] !== oldAnnotations[seccompPod]) return true;
  const spec = objectOf(pod['spec']) ?? {};
  const oldSpec = objectOf(old['spec']) ?? {};
  const list = (s: JsonObject, k: string) => (Array.isArray(s[k]) ? (s[k] as unknown[]).filter((c): c is JsonObject => objectOf(c) !== undefined) : []);
  const changed = (c: JsonObject, o: JsonObject) => {
    const key = `container.seccomp.security.alpha.kubernetes.io/${stringOf(c['name']) ?? ''}`;
    return c['image'] !== o['image'] || annotations[key] !== oldAnnotations[key];
  };
  for (const kind of ['containers', 'initContainers']) {
    const now = list(spec, kind);
    const before = list(oldSpec, kind);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => changed(c, before[i]!))) return true;
  }
  const oldEphemeral = list(oldSpec, 'ephemeralContainers');
  return list(spec, 'ephemeralContainers').some((c) => {
    const o = oldEphemeral.find((e) => e['name'] === c['name']);
    return !o || changed(c, o);
  });
}
