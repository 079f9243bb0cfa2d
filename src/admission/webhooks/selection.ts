// Whether a webhook is to be called for a request: a rule matches (in the request's version or,
// with matchPolicy Equivalent, another), then its namespaceSelector matches the namespace's labels
// (a namespace's own labels when the request is about it), then its objectSelector matches the
// labels of the object or of the old object.
import { internalError, notFound } from '../../errors.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes } from '../types.js';
import type { Webhook } from './config.js';
import { admissionNamespace } from './review.js';
import { matchRules, type Invocation, type RuleTarget } from './rules.js';
import type { Labels, LabelMatcher } from './selector.js';
import type { ReviewObjects } from './versioned.js';
import { type JsonObject, isObject } from '../../json.js';

function labelsOf(obj: JsonObject | undefined): Labels {
  if (!obj) return undefined;
  const labels = metadataOf(obj)['labels'];
  return isObject(labels) ? (labels as Record<string, string>) : undefined;
}

/** A selector's answer; a selector that does not parse fails the request (500), as in the reference. */
function selects(matcher: LabelMatcher, labels: Labels): boolean {
  try {
    return matcher.matches(labels);
  } catch (err) {
    throw internalError(err instanceof Error ? err.message : String(err));
  }
}

/** Per request: the rule target and the namespace's labels, looked up once. */
export class Selection {
  readonly target: RuleTarget;
  private namespaceLabels?: Promise<Labels>;

  constructor(private readonly registry: Registry, private readonly attrs: AdmissionAttributes) {
    this.target = { operation: attrs.operation, info: attrs.info, subresource: attrs.subresource ?? '', namespace: admissionNamespace(attrs) };
  }

  /** The invocation of `hook`, or undefined when it is not to be called. `current`: the objects as they stand. */
  async invocation(hook: Webhook, current: ReviewObjects): Promise<Invocation | undefined> {
    const invocation = matchRules(hook, this.target, this.registry.definitions);
    if (!invocation) return undefined;
    if (!(await this.namespaceMatches(hook, current))) return undefined;
    if (!hook.objectSelector.empty && !selects(hook.objectSelector, labelsOf(current.object)) && !selects(hook.objectSelector, labelsOf(current.oldObject))) {
      return undefined;
    }
    return invocation;
  }

  private async namespaceMatches(hook: Webhook, current: ReviewObjects): Promise<boolean> {
    const { namespace } = this.target;
    const isNamespace = this.attrs.info.resource === 'namespaces';
    // Cluster-scoped objects other than namespaces are never exempted by a namespaceSelector.
    if (namespace === '' && !isNamespace) return true;
    if (hook.namespaceSelector.empty) return true;
    // A namespace being created or updated is judged by its new labels.
    if (isNamespace && !this.target.subresource && (this.attrs.operation === 'CREATE' || this.attrs.operation === 'UPDATE')) {
      return selects(hook.namespaceSelector, labelsOf(current.object));
    }
    this.namespaceLabels ??= this.lookUpNamespace(namespace);
    return selects(hook.namespaceSelector, await this.namespaceLabels);
  }

  private async lookUpNamespace(name: string): Promise<Labels> {
    const info = this.registry.definitions.lookup('', 'v1', 'namespaces');
    if (!info) return undefined;
    // The informer may lag a namespace just created: storage decides before it counts as missing.
    const ns = (await this.registry.informer(info)).get(undefined, name) ?? await this.registry.getObject(info, undefined, name);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, name);
    return labelsOf(ns);
  }
}
