// OpenAPI for resources defined at run time (the built-ins' come from the vendored documents): the
// paths of each served version as the reference's CRD builder makes them (operation ids, tags,
// descriptions, parameters — kubectl looks for `fieldValidation` on PATCH to decide whether the
// server validates fields —, bodies and answers), and the kind's schema. v3 paths are the v2 ones
// converted by the rules that turn the vendored v2 paths into the vendored v3 ones.
import { createHash } from 'node:crypto';
import { swaggerDocument } from '../api/openapi-documents.js';
import { v3PathItem } from '../api/openapi-v3-from-v2.js';
import { isObject, type JsonObject } from '../json.js';
import type { ResourceDefinition } from '../registry/definitions.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** `stable.example.com`, `v1`, `CronTab` → `com.example.stable.v1.CronTab`, the reference's name. */
export function definitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** The metav1 options type an operation takes its query parameters from, as the reference's CRD builder picks it. */
type Options = 'get' | 'list' | 'create' | 'update' | 'delete';

interface Operation {
  method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  action: string;
  /** The route's operation verb (the reference's: list, read, replace, patch, create, delete, deletecollection). */
  verb: string;
  options: Options;
  /** What the operation reads: the kind, a Patch, DeleteOptions (optional), or nothing. */
  reads?: string;
  /** The response's definition (the kind, its list, Status or Scale). */
  returns: string;
}

interface PathOf {
  path: string;
  /** `ForAllNamespaces` for the list across namespaces; the subresource's name for a subresource. */
  suffix: string;
  operations: Operation[];
}

const STATUS = `${META}.Status`;
const PATCH = `${META}.Patch`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

/** The routes the reference's CRD builder makes for one version, in its order. */
function pathsOf(def: ResourceDefinition, version: string, verbs: string[], subresources: string[]): PathOf[] {
  const gv = def.group ? `/apis/${def.group}/${version}` : `/api/${version}`;
  const collection = def.namespaced ? `${gv}/namespaces/{namespace}/${def.resource}` : `${gv}/${def.resource}`;
  const kind = definitionName(def.group, version, def.kind);
  const list = definitionName(def.group, version, def.listKind);
  const has = (verb: string) => verbs.includes(verb);
  const out: PathOf[] = [];
  const listOp: Operation = { method: 'get', action: 'list', verb: 'list', options: 'list', returns: list };
  if (def.namespaced && has('list')) out.push({ path: `${gv}/${def.resource}`, suffix: 'ForAllNamespaces', operations: [listOp] });
  const collectionOps: Operation[] = [];
  if (has('list')) collectionOps.push(listOp);
  if (has('create')) collectionOps.push({ method: 'post', action: 'post', verb: 'create', options: 'create', reads: kind, returns: kind });
  if (has('deletecollection')) collectionOps.push({ method: 'delete', action: 'deletecollection', verb: 'deletecollection', options: 'list', returns: STATUS });
  if (collectionOps.length) out.push({ path: collection, suffix: '', operations: collectionOps });
  const objectOps: Operation[] = [];
  if (has('get')) objectOps.push({ method: 'get', action: 'get', verb: 'read', options: 'get', returns: kind });
  if (has('update')) objectOps.push({ method: 'put', action: 'put', verb: 'replace', options: 'update', reads: kind, returns: kind });
  if (has('delete')) objectOps.push({ method: 'delete', action: 'delete', verb: 'delete', options: 'delete', reads: DELETE_OPTIONS, returns: STATUS });
  if (has('patch')) objectOps.push({ method: 'patch', action: 'patch', verb: 'patch', options: 'update', reads: PATCH, returns: kind });
  if (objectOps.length) out.push({ path: `${collection}/{name}`, suffix: '', operations: objectOps });
  for (const sub of subresources) {
    const returns = sub === 'scale' ? SCALE : kind;
    out.push({
      path: `${collection}/{name}/${sub}`,
      suffix: capitalize(sub),
      operations: [
        { method: 'get', action: 'get', verb: 'read', options: 'get', returns },
        { method: 'put', action: 'put', verb: 'replace', options: 'update', reads: returns, returns },
        { method: 'patch', action: 'patch', verb: 'patch', options: 'update', reads: PATCH, returns },
      ],
    });
  }
  return out;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The reference's ToValidOperationID: letters, `_` and (not first) digits kept; any other character capitalizes the next. */
function validOperationId(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let upper = capitalizeFirst;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/\p{L}/u.test(c) || c === '_' || (i !== 0 && c >= '0' && c <= '9')) {
      out += upper ? c.toUpperCase() : c;
      upper = false;
    } else {
      upper = true;
    }
  }
  return out;
}

/** The group's part of operation ids and tags: `.k8s.io` dropped, as the reference names its own groups. */
function groupName(group: string): string {
  return (group || 'core').replace(/\.k8s\.io$/, '');
}

/**
 * The reference's operation id: the route's operation (`readNamespacedWidgetStatus`) with the
 * group and version put after its verb: `readBenchExampleComV1NamespacedWidgetStatus`;
 * deletecollection counts as `delete` (`deleteBenchExampleComV1CollectionNamespacedWidget`).
 */
function operationId(def: ResourceDefinition, version: string, op: Operation, suffix: string): string {
  const verb = op.verb === 'deletecollection' ? 'delete' : op.verb;
  const rest = `${op.verb === 'deletecollection' ? 'collection' : ''}${def.namespaced && suffix !== 'ForAllNamespaces' ? 'Namespaced' : ''}${def.kind}${suffix}`;
  return verb + validOperationId(groupName(def.group), true) + validOperationId(version, true) + validOperationId(rest, true);
}

/** The reference's GetArticleForNoun: none for a plural, `an` before a vowel, else `a`. */
function article(noun: string): string {
  if (noun.endsWith('s') && !noun.endsWith('ss')) return ' ';
  return /^[aeiouAEIOU]/.test(noun) ? ' an ' : ' a ';
}

function describe(kind: string, op: Operation, suffix: string): string {
  const sub = suffix && suffix !== 'ForAllNamespaces' ? ` ${suffix.toLowerCase()} of` : '';
  switch (op.verb) {
    case 'list': return `list${sub} objects of kind ${kind}`;
    case 'read': case 'replace': return `${op.verb}${sub} the specified ${kind}`;
    case 'patch': return `partially update${sub} the specified ${kind}`;
    case 'create': case 'delete': return `${op.verb}${sub}${article(kind)}${kind}`;
    default: return `delete collection of${sub ? `${sub} a` : ''} ${kind}`;
  }
}

type Parameter = Record<string, unknown> & { name: string; in: string };

/**
 * The query parameters of each options type and the shared path parameters, as the vendored v2
 * document states them for ConfigMaps (the reference makes both from the same metav1 types).
 */
let parameterTable: { byOptions: Record<Options, Parameter[]>; byName: Map<string, Parameter> } | undefined;

function parameters(): NonNullable<typeof parameterTable> {
  if (parameterTable) return parameterTable;
  const paths = swaggerDocument().paths as Record<string, Record<string, unknown>>;
  const collection = paths['/api/v1/namespaces/{namespace}/configmaps'] ?? {};
  const object = paths['/api/v1/namespaces/{namespace}/configmaps/{name}'] ?? {};
  const query = (item: Record<string, unknown>, method: string): Parameter[] => {
    const op = item[method];
    const list = isObject(op) && Array.isArray(op['parameters']) ? (op['parameters'] as Parameter[]) : [];
    return list.filter((p) => p.in === 'query');
  };
  const byName = new Map<string, Parameter>();
  for (const item of [collection, object]) {
    for (const p of Array.isArray(item['parameters']) ? (item['parameters'] as Parameter[]) : []) byName.set(p.name, p);
  }
  parameterTable = {
    byOptions: {
      get: query(object, 'get'),
      list: query(collection, 'get'),
      create: query(collection, 'post'),
      update: query(object, 'put'),
      delete: query(object, 'delete'),
    },
    byName,
  };
  return parameterTable;
}

function pathParameters(def: ResourceDefinition, path: string): Parameter[] {
  const { byName } = parameters();
  const out: Parameter[] = [];
  if (path.includes('{name}')) out.push({ ...byName.get('name')!, description: `name of the ${def.kind}` });
  if (path.includes('{namespace}')) out.push(byName.get('namespace')!);
  out.push(byName.get('pretty')!);
  return out;
}

const byParameterName = (a: Parameter, b: Parameter): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The success answers of each action, as the reference's CRD builder declares them. */
const RESPONSES: Record<string, Array<[string, string]>> = {
  post: [['200', 'OK'], ['201', 'Created'], ['202', 'Accepted']],
  put: [['200', 'OK'], ['201', 'Created']],
  delete: [['200', 'OK'], ['202', 'Accepted']],
};

/**
 * One path item in OpenAPI v2, as the reference's CRD builder and kube-openapi make it: parameters
 * shared by every operation of the path are stated once on the path, each list sorted by name
 * with the body first.
 */
function v2PathItem(def: ResourceDefinition, version: string, { path, suffix, operations }: PathOf): JsonObject {
  const ref = (name: string) => `#/definitions/${name}`;
  const onPath = pathParameters(def, path);
  const perOperation = operations.map((op) => [...onPath, ...parameters().byOptions[op.options]]);
  const shared = perOperation[0]!.filter((p) => perOperation.every((ps) => ps.includes(p)));
  const item: JsonObject = {};
  operations.forEach((op, i) => {
    const own = perOperation[i]!.filter((p) => !shared.includes(p)).sort(byParameterName);
    const body = op.reads ? [{ in: 'body', name: 'body', ...(op.reads === DELETE_OPTIONS ? {} : { required: true }), schema: { $ref: ref(op.reads) } }] : [];
    const responses: JsonObject = {};
    for (const [code, description] of RESPONSES[op.action] ?? [['200', 'OK']]) responses[code] = { description, schema: { $ref: ref(op.returns) } };
    responses['401'] = { description: 'Unauthorized' };
    item[op.method] = {
      consumes: op.method === 'patch' ? ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'] : ['application/json', 'application/yaml'],
      description: describe(def.kind, op, suffix),
      operationId: operationId(def, version, op, suffix),
      ...(body.length || own.length ? { parameters: [...body, ...own] } : {}),
      produces: ['application/json', 'application/yaml'],
      responses,
      schemes: ['https'],
      tags: [`${validOperationId(groupName(def.group), false)}_${validOperationId(version, false)}`],
      'x-kubernetes-action': op.action,
      'x-kubernetes-group-version-kind': { group: def.group, kind: def.kind, version },
    };
  });
  item['parameters'] = [...shared].sort(byParameterName);
  return item;
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

type Part = { paths: JsonObject; schemas: Record<string, JsonObject> };

/**
 * A part serialized once: its paths' and schemas' JSON members (`"name":{…}`, comma-separated),
 * encoded, with their digest (a document's ETag is made of its parts', without reading them again),
 * and the schemas it refers to.
 */
export interface PartText {
  paths: Buffer;
  schemas: Buffer;
  digest: Buffer;
  schemaNames: string[];
  refs: Set<string>;
}

/** Entries as the members of a JSON object (`"k":v,"k2":v2`), without the braces: pieces to assemble documents from. */
export function jsonMembers(entries: ReadonlyArray<[string, unknown]>): string {
  return entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',');
}

const texts = new WeakMap<Part, PartText>();

function textOf(part: Part): PartText {
  let text = texts.get(part);
  if (!text) {
    const paths = jsonMembers(Object.entries(part.paths));
    const schemas = jsonMembers(Object.entries(part.schemas));
    const refs = new Set<string>();
    for (const t of [paths, schemas]) for (const m of t.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) refs.add(m[1]!);
    const bytes = { paths: Buffer.from(paths), schemas: Buffer.from(schemas) };
    const digest = createHash('sha512').update(bytes.paths).update('\0').update(bytes.schemas).digest();
    text = { ...bytes, digest, schemaNames: Object.keys(part.schemas), refs };
    texts.set(part, text);
  }
  return text;
}

/**
 * The v3 document of one group-version of these resources as serialized pieces (each part's made
 * once and kept): with many CRDs in a group, a new one costs its own part and a concatenation, not
 * a serialization of every other's.
 */
export function openApiV3DocumentTexts(definitions: readonly ResourceDefinition[], group: string, version: string): PartText[] {
  const out: PartText[] = [];
  for (const def of definitions) {
    for (const v of def.versions) if (def.group === group && v.version === version) out.push(textOf(partOf(def, v, true)));
  }
  return out;
}

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
    for (const path of pathsOf(def, v.version, v.verbs, subresources)) {
      const item = v2PathItem(def, v.version, path);
      out[path.path] = v3 ? v3PathItem(item) : item;
    }
    part = { paths: out, schemas: schemasOf(def, v.version, ref, v3) };
    byVersion.set(key, part);
  }
  return part;
}

/** The paths and definitions the v2 document gains from these resources, as serialized pieces (as openApiV3DocumentTexts). */
export function openApiV2Texts(definitions: readonly ResourceDefinition[]): PartText[] {
  return definitions.flatMap((def) => def.versions.map((v) => textOf(partOf(def, v, false))));
}

/** A v3 document of these paths and schemas: the shape of every v3 document made here. */
export function openApiV3DocumentOf(paths: JsonObject, schemas: Record<string, JsonObject>): JsonObject {
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'unversioned' }, paths, components: { schemas } };
}
