// The resource definition that serves a CustomResourceDefinition's custom resources: one per CRD,
// with every served version under /apis/<group>/<version>, named by the CRD's accepted names, with
// the subresources, printer columns and schema each version declares. Conversion between versions
// is the `None` strategy's (the object unchanged but for apiVersion, set by the caller), or the
// CRD's conversion webhook's on every read and write (webhook-converter.ts).
import { badRequest, internalError } from '../errors.js';
import { type JsonObject, isObject, jsonEqual, copyJson } from '../json.js';
import { storageVersionHash, type ResourceDefinition, type ResourceHooks, type ScaleView, type SubresourceInfo, type VersionSpec } from '../registry/definitions.js';
import { metadataOf } from '../registry/objects.js';
import { objectCountEvaluator } from '../quota/evaluators.js';
import { type CrdVersion, type ScaleSpec, groupOf, isConditionTrue, isNamespaced, namesOf, specOfCrd, statusOfCrd, versionsOf } from './crd-object.js';
import { parseJsonPath, valueAt } from './json-path.js';
import { printerFor } from './printer-columns.js';
import type { CrdSchemaEngine, CrdVersionSchema } from './schema-engine.js';
import { storedReads } from './stored-reads.js';
import { convertByWebhook, webhookConversionOf } from './webhook-converter.js';

const VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
/**
 * A terminating CRD's resources cannot be created; they can still be updated (a controller takes
 * its finalizer off), and discovery still lists every verb, as the reference's.
 */
const TERMINATING_REFUSALS = { create: 'create not allowed while custom resource definition is terminating' };
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

const stepsOf = (path: string): string[] => path.replace(/^\./, '').split('.');

function setAt(obj: JsonObject, steps: readonly string[], value: unknown): void {
  let at = obj;
  for (const step of steps.slice(0, -1)) {
    if (!isObject(at[step])) at[step] = {};
    at = at[step] as JsonObject;
  }
  at[steps[steps.length - 1]!] = value as JsonObject[string];
}

function intAt(obj: JsonObject, path: string): number | undefined {
  const v = valueAt(obj, parseJsonPath(path) ?? []);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw internalError(`${path.slice(1)} accessor error: ${JSON.stringify(v)} is of the type ${typeof v}, expected int64`);
  return v;
}

/** The scale subresource over the CRD's replicas and selector paths. */
function scaleView(spec: ScaleSpec): ScaleView {
  return {
    toScale(obj) {
      const desired = intAt(obj, spec.specReplicasPath);
      if (desired === undefined) throw internalError(`the spec replicas field "${spec.specReplicasPath}" does not exist`);
      const actual = intAt(obj, spec.statusReplicasPath) ?? 0;
      const selector = spec.labelSelectorPath ? valueAt(obj, parseJsonPath(spec.labelSelectorPath) ?? []) : undefined;
      const meta = metadataOf(obj);
      const scaleMeta: JsonObject = {};
      for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (meta[k] !== undefined) scaleMeta[k] = meta[k];
      const status: JsonObject = { replicas: actual };
      if (typeof selector === 'string' && selector) status['selector'] = selector;
      return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: scaleMeta, spec: desired === 0 ? {} : { replicas: desired }, status };
    },
    withReplicas(obj, replicas) {
      if (!spec.specReplicasPath) throw badRequest(`the spec replicas field "${spec.specReplicasPath}" cannot be empty`);
      setAt(obj, stepsOf(spec.specReplicasPath), replicas);
      return obj;
    },
  };
}

function subresourcesOf(group: string, kind: string, v: CrdVersion): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  if (v.status) out.push({ name: 'status', group, version: v.name, kind, verbs: SUBRESOURCE_VERBS });
  if (v.scale) out.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUBRESOURCE_VERBS });
  return out;
}

/** What decides how a CRD is served: a definition is rebuilt only when this changes (status writes do not). */
export function servingKey(crd: JsonObject): string {
  return JSON.stringify([specOfCrd(crd), statusOfCrd(crd)['acceptedNames'], isConditionTrue(crd, 'Terminating'), metadataOf(crd)['uid']]);
}

/** Whether a CRD's resources are served: established (names accepted), with a served version. */
export function isServed(crd: JsonObject): boolean {
  return isConditionTrue(crd, 'Established') && versionsOf(crd).some((v) => v.served);
}

/** The resource definition serving a CRD's custom resources; undefined when nothing is served. */
export function customResourceDefinitionFor(crd: JsonObject, engine: CrdSchemaEngine): ResourceDefinition | undefined {
  if (!isServed(crd)) return undefined;
  const group = groupOf(crd);
  const names = namesOf(statusOfCrd(crd)['acceptedNames']);
  const all = versionsOf(crd);
  const storage = all.find((v) => v.storage);
  if (!storage || !names.plural || !names.kind) return undefined;
  const served = all.filter((v) => v.served);
  const terminating = isConditionTrue(crd, 'Terminating');
  // Every version reports the storage version's hash, as the reference's discovery does.
  const hash = storageVersionHash(group, storage.name, names.kind);
  const versions = served.map((v): VersionSpec => {
    const spec: VersionSpec = { version: v.name, verbs: VERBS, subresources: subresourcesOf(group, names.kind, v), storageVersionHash: hash };
    if (terminating) spec.refusedVerbs = TERMINATING_REFUSALS;
    if (v.deprecated) spec.deprecationWarning = v.deprecationWarning ?? `${group}/${v.name} ${names.kind} is deprecated`;
    return spec;
  });
  const byVersion = new Map(all.map((v) => [v.name, v]));
  const compiled = (version: string, schema: JsonObject | undefined) => engine.compile(schema, { group, version, kind: names.kind });
  const schemas = new Map<string, CrdVersionSchema>(all.map((v) => [v.name, compiled(v.name, v.schema)]));
  const schemaOf = (version: string): CrdVersionSchema => schemas.get(version) ?? compiled(version, undefined);
  const printers = new Map(served.map((v) => [v.name, printerFor(v.columns)]));
  const statusOn = (version: string) => byVersion.get(version)?.status ?? false;
  const firstPrinter = printers.get(served[0]!.name)!;
  /** The version an object is in (its apiVersion's), the storage version when it says none. */
  const versionOf = (obj: JsonObject): string => String(obj['apiVersion'] ?? '').split('/')[1] || storage.name;
  const reads = storedReads(schemaOf, versionOf);
  const hooks: ResourceHooks = {
    defaults(obj, version) {
      schemaOf(version).default(obj);
    },
    normalize(obj) {
      schemaOf(versionOf(obj)).prune(obj);
    },
    // The reference's decoder defaults, then prunes.
    pruneUnknown(obj, version) {
      const schema = schemaOf(version);
      schema.default(obj);
      return schema.prune(obj);
    },
    validateCreate(obj, version) {
      return schemaOf(version).validate(obj, undefined);
    },
    validateUpdate(obj, old, version) {
      return schemaOf(version).validate(obj, old);
    },
    // A create cannot set status where status has its own endpoint (the generic store's `{}` included).
    prepareForCreate(obj) {
      if (statusOn(versionOf(obj))) delete obj['status'];
    },
    // Without the status subresource, status is content like any other: its changes are new generations too.
    generationChange(next, current) {
      return !statusOn(versionOf(next)) && !jsonEqual(next['status'], current['status']);
    },
    // An object read in another version than stored gets that version's defaults too, as the
    // reference defaults what it converts (readStored has read it in its own version first).
    convert(obj, _from, to) {
      const out = copyJson(obj);
      schemaOf(to).default(out);
      return out;
    },
    // The reference's storage decoder prunes and defaults what it reads.
    readStored: reads.read,
    written: reads.written,
    copied: reads.copied,
    table: {
      columns: () => firstPrinter.columns(),
      cells: (obj, now) => (printers.get(versionOf(obj)) ?? firstPrinter).cells(obj, now),
      nullWhenEmpty: true,
    },
    quota: objectCountEvaluator(group, names.plural),
  };
  const webhook = webhookConversionOf(specOfCrd(crd));
  if (webhook) {
    // What the webhook answers is read as the target version: pruned to its schema, then defaulted
    // as a `None` conversion's object is.
    hooks.convertByCall = async (registry, obj, _from, to) => {
      const out = await convertByWebhook(registry, webhook, obj, group ? `${group}/${to}` : to);
      const schema = schemaOf(to);
      schema.prune(out);
      schema.default(out);
      return out;
    };
  }
  const scale = served.find((v) => v.scale)?.scale;
  if (scale) hooks.scale = scaleView(scale);
  return {
    group,
    resource: names.plural,
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    singularName: names.singular || names.kind.toLowerCase(),
    shortNames: names.shortNames.length ? names.shortNames : undefined,
    categories: names.categories.length ? names.categories : undefined,
    namespaced: isNamespaced(crd),
    versions,
    storageVersion: storage.name,
    nameRule: 'subdomain',
    tracksGeneration: true,
    returnsDeletedObject: false,
    hooks,
    builtin: false,
    schema: (version) => schemaOf(version).topology(),
    openApiSchema: (version, form) => schemaOf(version).publish(form),
  };
}
