// The built-in resource definitions: the facts derived from the vendored OpenAPI (api/catalog.ts)
// joined with what is special about each resource (its hooks).
import { builtinGroupPriorities, builtinResources, defaultEnabled, type BuiltinResource, type GroupVersionFilter } from '../../api/catalog.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { deprecationWarning } from '../../api/deprecations.js';
import { convert } from '../../api/conversion.js';
import { resourcePolicy } from '../../api/policies.js';
import { cellsFor, columnsFor, rowConditionsFor } from '../../api/printers/index.js';
import { selectableFieldSpec } from '../../api/selectable-fields.js';
import { validateCreate, validateUpdate } from '../../api/validation/index.js';
import { evaluatorFor } from '../../quota/evaluators.js';
import { podTemplateOf, subresourcePartsOf } from './legacy.js';
import { strategyFor } from '../strategies.js';
import { compareVersions, ResourceDefinitions, type ResourceDefinition, type ResourceHooks } from '../definitions.js';

/** The hooks of a built-in resource. */
function hooksOf(group: string, resource: string, kind: string): ResourceHooks {
  const hooks: ResourceHooks = {
    ...strategyFor({ group, resource }),
    defaults: (obj, version) => applyDefaults({ group, version, kind }, obj),
    validateCreate: (obj, version) => validateCreate({ group, version, kind, resource }, obj),
    validateUpdate: (obj, old, version, subresource) => validateUpdate({ group, version, kind, resource }, obj, old, subresource),
    convert: (obj, from, to) => convert(obj, group, resource, from, to),
    table: {
      columns: () => columnsFor(group, resource),
      cells: (obj, now) => cellsFor(group, resource, obj, now),
      conditions: (obj) => rowConditionsFor(group, resource, obj),
    },
  };
  const parts = subresourcePartsOf(group, resource);
  if (parts) hooks.subresourceParts = parts;
  const fields = selectableFieldSpec(group, resource, kind);
  if (fields) hooks.selectableFields = fields;
  const quota = evaluatorFor(group, resource);
  if (quota) hooks.quota = quota;
  const template = podTemplateOf(group, resource);
  if (template) hooks.podTemplate = template;
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
    out.push({
      group: first.group,
      resource: first.resource,
      kind: first.kind,
      listKind: `${first.kind}List`,
      singularName: named.singularName,
      shortNames: named.shortNames,
      categories: named.categories,
      namespaced: first.namespaced,
      versions: versions.map((r) => ({
        version: r.version, verbs: r.verbs, subresources: r.subresources, storageVersionHash: r.storageVersionHash,
        deprecationWarning: deprecationWarning({ group: r.group, version: r.version, resource: r.resource, kind: r.kind }),
      })),
      storageVersion,
      ...resourcePolicy(first.group, first.resource),
      hooks: hooksOf(first.group, first.resource, first.kind),
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
