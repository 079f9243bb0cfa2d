// The built-in resource definitions: the facts derived from the vendored OpenAPI (api/catalog.ts)
// joined with what the group modules say is special about each resource. What every built-in
// gets, whatever its module says: its quantities normalized after its defaults, malformed
// quantities refused as the decoder refuses them, and (in the groups that keep the core metadata
// rules) unprefixed finalizers other than the standard ones refused. A resource no module
// mentions is generic: DNS subdomain names, no generation, a Status for a delete, the Table
// "Name / Created At", field selectors on metadata.name and metadata.namespace, an object count
// for quota.
import { builtinGroupPriorities, builtinResources, defaultEnabled, type BuiltinResource, type GroupVersionFilter } from '../../api/catalog.js';
import { normalizeQuantities } from '../../api/defaults/quantities.js';
import { deprecationWarning } from '../../api/deprecations.js';
import { checkQuantityDecoding, unprefixedFinalizerErrors } from '../../api/validation/index.js';
import type { FieldError } from '../../errors.js';
import { objectCountEvaluator } from '../../quota/evaluators.js';
import { compareVersions, ResourceDefinitions, type ResourceDefinition, type ResourceHooks } from '../definitions.js';
import { admissionregistration } from './admissionregistration.js';
import { apiextensions } from './apiextensions.js';
import { apiregistration } from './apiregistration.js';
import { apps } from './apps.js';
import { authentication } from './authentication.js';
import { authorization } from './authorization.js';
import { autoscaling } from './autoscaling.js';
import { batch } from './batch.js';
import { certificates } from './certificates.js';
import { coordination } from './coordination.js';
import { core } from './core.js';
import { discovery } from './discovery.js';
import { events } from './events.js';
import { flowcontrol } from './flowcontrol.js';
import { networking } from './networking.js';
import { node } from './node.js';
import { policy } from './policy.js';
import { rbac } from './rbac.js';
import { scheduling } from './scheduling.js';
import { storage } from './storage.js';
import type { BuiltinGroup, BuiltinSpec } from './types.js';

const GROUPS: readonly BuiltinGroup[] = [
  core, admissionregistration, apiextensions, apiregistration, apps, authentication, authorization, autoscaling, batch, certificates,
  coordination, discovery, events, flowcontrol, networking, node, policy, rbac, scheduling, storage,
];

const NOTHING_SPECIAL: BuiltinSpec = {};

/** The hooks of a built-in resource: its module's, and what every built-in gets. */
function hooksOf(group: BuiltinGroup | undefined, resource: BuiltinResource, spec: BuiltinSpec): ResourceHooks {
  const { kind } = resource;
  const validation = spec.validation ?? {};
  const metadataRules = group?.standardFinalizers === false ? (): FieldError[] => [] : unprefixedFinalizerErrors;
  const hooks: ResourceHooks = {
    ...spec.strategy,
    defaults(obj, version) {
      spec.defaults?.[version]?.(obj);
      normalizeQuantities({ group: resource.group, version, kind }, obj);
    },
    validateCreate(obj, version) {
      checkQuantityDecoding({ kind, version }, obj);
      return [...metadataRules(obj), ...(validation.create?.(obj) ?? [])];
    },
    validateUpdate(obj, old, version, subresource) {
      if (subresource !== undefined) return validation.subresources?.[subresource]?.(obj, old) ?? [];
      checkQuantityDecoding({ kind, version }, obj);
      const own = validation.update ? validation.update(obj, old) : (validation.create?.(obj) ?? []);
      return [...metadataRules(obj), ...own];
    },
  };
  if (spec.table) hooks.table = spec.table;
  if (spec.selectableFields) hooks.selectableFields = spec.selectableFields;
  if (spec.indexedFields) hooks.indexedFields = spec.indexedFields;
  if (spec.podTemplate) hooks.podTemplate = spec.podTemplate;
  if (spec.subresourceParts) hooks.subresourceParts = spec.subresourceParts;
  if (spec.convert) hooks.convert = spec.convert;
  if (spec.convertAcross) hooks.convertAcross = spec.convertAcross;
  if (spec.create) hooks.create = spec.create;
  if (spec.computed) hooks.computed = spec.computed;
  if (spec.subresourceCreates) hooks.subresourceCreates = spec.subresourceCreates;
  if (spec.quota !== null) hooks.quota = spec.quota ?? objectCountEvaluator(resource.group, resource.resource);
  return hooks;
}

/** One definition per built-in group-resource, its versions from every enabled group-version. */
export function builtinDefinitions(enabled: GroupVersionFilter = defaultEnabled): ResourceDefinition[] {
  const priorities = builtinGroupPriorities();
  const byResource = new Map<string, BuiltinResource[]>();
  for (const r of builtinResources(enabled)) {
    const key = `${r.group}/${r.resource}`;
    byResource.set(key, [...(byResource.get(key) ?? []), r]);
  }
  // A group's served versions in the reference's order: objects are stored in the first that has the resource.
  const servedVersions = new Map<string, Set<string>>();
  for (const versions of byResource.values()) for (const r of versions) servedVersions.set(r.group, (servedVersions.get(r.group) ?? new Set()).add(r.version));
  const groupOrder = (group: string): string[] => {
    const served = servedVersions.get(group)!;
    const known = priorities.find((g) => g.name === group)?.versions ?? [];
    return [...known.filter((v) => served.has(v)), ...[...served].filter((v) => !known.includes(v)).sort(compareVersions)];
  };
  const out: ResourceDefinition[] = [];
  for (const versions of byResource.values()) {
    const first = versions[0]!;
    const order = groupOrder(first.group);
    const storageVersion = order.find((v) => versions.some((r) => r.version === v))!;
    const named = versions.find((r) => r.singularName) ?? first;
    const group = GROUPS.find((g) => g.name === first.group);
    const spec = group?.resources[first.resource] ?? NOTHING_SPECIAL;
    out.push({
      group: first.group,
      resource: first.resource,
      kind: first.kind,
      listKind: `${first.kind}List`,
      singularName: named.singularName,
      shortNames: named.shortNames,
      categories: named.categories,
      namespaced: first.namespaced,
      versions: versions.map((r) => {
        const deprecation = spec.deprecated?.[r.version];
        return {
          version: r.version, verbs: r.verbs, subresources: r.subresources, storageVersionHash: r.storageVersionHash,
          deprecationWarning: deprecation && deprecationWarning(r, deprecation),
          removedRelease: deprecation?.removedIn,
        };
      }),
      storageVersion,
      nameRule: spec.nameRule ?? 'subdomain',
      tracksGeneration: spec.tracksGeneration ?? false,
      returnsDeletedObject: spec.returnsDeletedObject ?? false,
      hooks: hooksOf(group, first, spec),
      builtin: true,
    });
  }
  return out;
}

/** The live set with every built-in definition added (the server's set at start). */
export function builtinResourceDefinitions(enabled: GroupVersionFilter = defaultEnabled): ResourceDefinitions {
  const set = new ResourceDefinitions(builtinGroupPriorities());
  for (const definition of builtinDefinitions(enabled)) set.add(definition);
  return set;
}
