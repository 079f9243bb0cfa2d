// The ResourceQuota admission plugin: a create (or an update that grows usage) in a namespace with
// ResourceQuotas is charged to them; it is refused with 403 when a quota would go past a hard limit.
// The quotas' status.used is raised as part of admission (optimistically: a concurrent change of a
// quota makes this write check again against the newer usage), except for dry runs. Deletions are
// not handled here: the quota controller gives the usage back.
import type { ResourceInfo } from '../../registry/definitions.js';
import { StatusError } from '../../errors.js';
import type { Evaluator } from '../../quota/evaluators.js';
import { checkRequest, nameOf, QuotaRefusal, type Charge } from '../../quota/check.js';
import { resourceListJson } from '../../quota/resource-list.js';
import { NamespaceIndex } from '../../registry/namespace-index.js';
import { metadataOf } from '../../registry/objects.js';
import { SYSTEM_WRITER, type Registry } from '../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices, Operation } from '../types.js';
import { forbidden } from './support.js';
import { type JsonObject, copyJson } from '../../json.js';

/** The server's own status writes, as the reference's loopback client records them. */
const MAX_RETRIES = 8;

/** The quota changed (409) or went (404) since it was read: check again against what is stored now. */
function isStale(err: unknown): boolean {
  return err instanceof StatusError && (err.code === 409 || err.code === 404);
}

export class ResourceQuotaAdmission implements AdmissionPlugin {
  readonly name = 'ResourceQuota';
  readonly operations: readonly Operation[] = ['CREATE', 'UPDATE'];
  private quotas: NamespaceIndex | undefined;
  private starting: Promise<NamespaceIndex> | undefined;

  async validate(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> {
    const { operation, namespace, object } = attributes;
    // Subresources (status, scale, …) and cluster-scoped objects are never charged.
    if (attributes.subresource || namespace === undefined || !object) return;
    const evaluator = attributes.info.definition.hooks.quota;
    if (!evaluator?.handles(operation)) return;
    const index = this.quotas ?? await this.index(services.registry);
    if (!index.has(namespace)) return;
    // A create of a name already taken fails after admission: charging it would hold usage until the next resync.
    if (operation === 'CREATE' && await services.registry.stored(services.registry.keyOf(attributes.info, namespace, attributes.name))) return;
    await this.charge(attributes, evaluator, index.in(namespace), services.registry);
  }

  private index(registry: Registry): Promise<NamespaceIndex> {
    this.starting ??= NamespaceIndex.start(registry, quotaInfo(registry)).then((index) => (this.quotas = index));
    return this.starting;
  }

  /** Checks the write and records its usage; only the quotas whose update conflicted are checked again. */
  private async charge(attributes: AdmissionAttributes, evaluator: Evaluator, quotas: readonly JsonObject[], registry: Registry): Promise<void> {
    const request = { operation: attributes.operation, object: attributes.object!, oldObject: attributes.oldObject };
    let pending = quotas;
    for (let attempt = 0; ; attempt++) {
      let charges: Charge[];
      try {
        charges = checkRequest(pending, request, evaluator, Date.now());
      } catch (err) {
        if (err instanceof QuotaRefusal) throw forbidden(attributes, err.message);
        throw err;
      }
      if (charges.length === 0 || attributes.dryRun) return;
      const failed: string[] = [];
      let lastError: unknown;
      for (const charge of charges) {
        try {
          await recordUsage(registry, charge);
        } catch (err) {
          if (!isStale(err)) throw err;
          failed.push(nameOf(charge.quota));
          lastError = err;
        }
      }
      if (failed.length === 0) return;
      if (attempt >= MAX_RETRIES) throw lastError;
      pending = await freshQuotas(registry, attributes.namespace!, failed);
    }
  }
}

function quotaInfo(registry: Registry): ResourceInfo {
  return registry.definitions.lookup('', 'v1', 'resourcequotas')!;
}

/** Writes a quota's new status.used, on the condition that the quota has not changed since it was read. */
async function recordUsage(registry: Registry, charge: Charge): Promise<void> {
  const quota = charge.quota;
  const meta = copyJson(metadataOf(quota));
  const status = { ...(quota['status'] as JsonObject | undefined), used: resourceListJson(charge.used) };
  await registry.update(quotaInfo(registry), String(meta['namespace']), String(meta['name']), { ...quota, metadata: meta, status }, 'status', SYSTEM_WRITER);
}

/** The named quotas as stored now (the watch cache may not have the latest write yet). */
async function freshQuotas(registry: Registry, namespace: string, names: string[]): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  for (const name of names) {
    const quota = await registry.getObject(quotaInfo(registry), namespace, name);
    if (quota) out.push(quota);
  }
  return out;
}
