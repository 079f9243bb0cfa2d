// OpenAPI for resources defined at run time (the built-ins' come from the vendored documents): the
// paths of each served version with their actions and group-version-kind, and the kind's schema,
// as the reference publishes a CustomResourceDefinition's. Enough for kubectl's explain and
// client-side validation, and for anything that reads x-kubernetes-group-version-kind.
import type { JsonObject } from '../json.js';
import type { ResourceDefinition } from '../registry/definitions.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** `stable.example.com`, `v1`, `CronTab` → `com.example.stable.v1.CronTab`, the reference's name. */
export function definitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

interface Operation {
  method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  action: string;
  verb: string;
  /** The response's definition (the kind, its list, or Status). */
  returns: string;
}

function pathsOf(def: ResourceDefinition, version: string, verbs: string[], subresources: string[]): Array<{ path: string; operations: Operation[] }> {
  const gv = def.group ? `/apis/${def.group}/${version}` : `/api/${version}`;
  const collection = def.namespaced ? `${gv}/namespaces/{namespace}/${def.resource}` : `${gv}/${def.resource}`;
  const kind = definitionName(def.group, version, def.kind);
  const list = definitionName(def.group, version, def.listKind);
  const has = (verb: string) => verbs.includes(verb);
  const out: Array<{ path: string; operations: Operation[] }> = [];
  const collectionOps: Operation[] = [];
  if (has('list')) collectionOps.push({ method: 'get', action: 'list', verb: 'list', returns: list });
  if (has('create')) collectionOps.push({ method: 'post', action: 'post', verb: 'create', returns: kind });
  if (has('deletecollection')) collectionOps.push({ method: 'delete', action: 'deletecollection', verb: 'deletecollection', returns: `${META}.Status` });
  if (collectionOps.length) out.push({ path: collection, operations: collectionOps });
  const objectOps: Operation[] = [];
  if (has('get')) objectOps.push({ method: 'get', action: 'get', verb: 'read', returns: kind });
  if (has('update')) objectOps.push({ method: 'put', action: 'put', verb: 'replace', returns: kind });
  if (has('patch')) objectOps.push({ method: 'patch', action: 'patch', verb: 'patch', returns: kind });
  if (has('delete')) objectOps.push({ method: 'delete', action: 'delete', verb: 'delete', returns: `${META}.Status` });
  if (objectOps.length) out.push({ path: `${collection}/{name}`, operations: objectOps });
  if (def.namespaced && has('list')) out.push({ path: `${gv}/${def.resource}`, operations: [{ method: 'get', action: 'list', verb: 'listAllNamespaces', returns: list }] });
  for (const sub of subresources) {
    const returns = sub === 'scale' ? 'io.k8s.api.autoscaling.v1.Scale' : kind;
    out.push({
      path: `${collection}/{name}/${sub}`,
      operations: [
        { method: 'get', action: 'get', verb: `read${capitalize(sub)}`, returns },
        { method: 'put', action: 'put', verb: `replace${capitalize(sub)}`, returns },
        { method: 'patch', action: 'patch', verb: `patch${capitalize(sub)}`, returns },
      ],
    });
  }
  return out;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function operationId(def: ResourceDefinition, version: string, op: Operation): string {
  const group = def.group.split('.').map(capitalize).join('');
  const scope = def.namespaced && op.verb !== 'listAllNamespaces' ? 'Namespaced' : '';
  const verb = op.verb === 'listAllNamespaces' ? 'list' : op.verb;
  const suffix = op.verb === 'listAllNamespaces' ? 'ForAllNamespaces' : '';
  return `${verb}${group}${capitalize(version)}${scope}${def.kind}${suffix}`;
}

/** The kind's schema with the fields every object has, and its list's. */
function schemasOf(def: ResourceDefinition, version: string, ref: (name: string) => string, v3: boolean): Record<string, JsonObject> {
  const given = def.schema?.(version) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = (given['properties'] ?? {}) as JsonObject;
  const gvk = [{ group: def.group, version, kind: def.kind }];
  const published = def.openApiSchema?.(version, v3 ? 'v3' : 'v2');
  return {
    [definitionName(def.group, version, def.kind)]: published ?? {
      ...given,
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
        metadata: { $ref: ref(`${META}.ObjectMeta`) },
        ...Object.fromEntries(Object.entries(properties).filter(([k]) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata')),
      },
      'x-kubernetes-group-version-kind': gvk,
    },
    [definitionName(def.group, version, def.listKind)]: {
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        items: { type: 'array', items: { $ref: ref(definitionName(def.group, version, def.kind)) } },
        kind: { type: 'string' },
        metadata: { $ref: ref(`${META}.ListMeta`) },
      },
      'x-kubernetes-group-version-kind': [{ group: def.group, version, kind: def.listKind }],
    },
  };
}

function paths(definitions: readonly ResourceDefinition[], only: { group: string; version: string } | undefined, v3: boolean): { paths: JsonObject; schemas: Record<string, JsonObject> } {
  const out: JsonObject = {};
  const schemas: Record<string, JsonObject> = {};
  for (const def of definitions) {
    for (const v of def.versions) {
      if (only && (only.group !== def.group || only.version !== v.version)) continue;
      const part = partOf(def, v, v3);
      Object.assign(schemas, part.schemas);
      Object.assign(out, part.paths);
    }
  }
  return { paths: out, schemas };
}

type Part = { paths: JsonObject; schemas: Record<string, JsonObject> };

/**
 * Each definition's paths and schemas per version and OpenAPI version, made once: a definition is
 * replaced, never changed, and a document is remade whenever any definition changes (with many
 * CRDs, remaking every one's part each time is most of the cost). Shared: never mutate a part.
 */
const parts = new WeakMap<ResourceDefinition, Map<string, Part>>();

function partOf(def: ResourceDefinition, v: ResourceDefinition['versions'][number], v3: boolean): Part {
  let byVersion = parts.get(def);
  if (!byVersion) parts.set(def, (byVersion = new Map()));
  const key = `${v3 ? 'v3' : 'v2'}/${v.version}`;
  let part = byVersion.get(key);
  if (!part) {
    const ref = (name: string) => (v3 ? `#/components/schemas/${name}` : `#/definitions/${name}`);
    const out: JsonObject = {};
    const subresources = v.subresources.map((s) => s.name);
    for (const { path, operations } of pathsOf(def, v.version, v.verbs, subresources)) {
      const item: JsonObject = {};
      for (const op of operations) {
        const schema = { $ref: ref(op.returns) };
        item[op.method] = {
          operationId: operationId(def, v.version, op),
          ...(v3 ? { responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } } } : { produces: ['application/json', 'application/yaml'], responses: { '200': { description: 'OK', schema } } }),
          'x-kubernetes-action': op.action,
          'x-kubernetes-group-version-kind': { group: def.group, version: v.version, kind: def.kind },
        };
      }
      out[path] = item;
    }
    part = { paths: out, schemas: schemasOf(def, v.version, ref, v3) };
    byVersion.set(key, part);
  }
  return part;
}

/** The paths and definitions the v2 document gains from these resources. */
export function openApiV2Additions(definitions: readonly ResourceDefinition[]): { paths: JsonObject; definitions: Record<string, JsonObject> } {
  const { paths: p, schemas } = paths(definitions, undefined, false);
  return { paths: p, definitions: schemas };
}

/** The v3 document of one group-version made of these resources. */
export function openApiV3Document(definitions: readonly ResourceDefinition[], group: string, version: string): JsonObject {
  const { paths: p, schemas } = paths(definitions, { group, version }, true);
  return openApiV3DocumentOf(p, schemas);
}

/** A v3 document of these paths and schemas: the shape of every v3 document made here. */
export function openApiV3DocumentOf(paths: JsonObject, schemas: Record<string, JsonObject>): JsonObject {
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'unversioned' }, paths, components: { schemas } };
}
