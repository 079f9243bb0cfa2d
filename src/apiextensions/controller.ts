// The CustomResourceDefinition controllers of the reference's apiextensions server, as one
// post-start hook: naming (acceptedNames, NamesAccepted), establishing (Established), the
// NonStructuralSchema and KubernetesAPIApprovalPolicyConformant conditions, the cleanup finalizer
// (a deleted CRD's custom resources are deleted, then the CRD goes), and serving: one resource
// definition per established CRD in the live set, changed when the CRD changes and removed when it
// goes. Started once the CRDs are listed and their resources defined, so a restarted server serves
// them before it is ready. The reference waits 5 s before establishing only when several servers
// share the storage (HA); one server establishes at once.
import { StatusError } from '../errors.js';
import { decodeJson, type JsonObject, jsonEqual, copyJson } from '../json.js';
import type { Informer, ObjectVersion, Subscription } from '../registry/informers.js';
import { metadataOf } from '../registry/objects.js';
import type { ResourceDefinitions, ResourceInfo } from '../registry/definitions.js';
import type { Registry, WriteContext } from '../registry/store.js';
import {
  approvalState, CLEANUP_FINALIZER, type Condition, type CrdNames, conditionsOf, CRD_GROUP, CRD_RESOURCE, crdName, findCondition, finalizersOf, groupOf,
  isConditionTrue, isProtectedGroup, namesOf, removeCondition, sameCondition, setCondition, specOfCrd, statusOfCrd, versionsOf,
} from './crd-object.js';
import { customResourceDefinitionFor, isServed, servingKey } from './custom-resources.js';
import type { CrdSchemaEngine } from './schema-engine.js';

/** The reference's apiextensions controllers write as the apiserver itself. */
const WRITER: WriteContext = { manager: 'kube-apiserver' };

/** What naming reads of another CRD of the group. */
interface NamesView {
  name: string;
  group: string;
  accepted: CrdNames;
  needsNames: boolean;
}

const inUse = (name: string): string => `"${name}" is already in use`;

/** How often a terminating CRD looks whether its last instances (held by finalizers) went. */
const INSTANCE_RECHECK_MS = 500;
/** How long it waits before saying it could not confirm that none remain (the reference's poll). */
const INSTANCE_WAIT_MS = 60_000;

export class CrdController {
  private subscription: Subscription | undefined;
  /** Per CRD name: the serving key of the definition this controller added. */
  private readonly served = new Map<string, { key: string; group: string; resource: string }>();
  /** Per CRD name: the work queued for it (one at a time per CRD). */
  private readonly queues = new Map<string, Promise<void>>();
  private stopped = false;
  /** Per CRD name: its schemas (as JSON) at its last structural check, and that check's problems. */
  private readonly structuralProblems = new Map<string, { key: string; problems: string[] }>();
  /** Per terminating CRD whose instances are not all gone: since when it has waited for them. */
  private readonly waitingForInstances = new Map<string, number>();
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  /** Per stored version of a CRD: what naming reads of it (see othersOfGroup). */
  private readonly namesViews = new WeakMap<Buffer, NamesView>();

  constructor(private readonly registry: Registry, private readonly engine: CrdSchemaEngine) {}

  private get definitions(): ResourceDefinitions {
    return this.registry.definitions;
  }

  private get crdInfo(): ResourceInfo {
    const info = this.definitions.lookup(CRD_GROUP, 'v1', CRD_RESOURCE);
    if (!info) throw new Error('apiextensions.k8s.io/v1 is not served');
    return info;
  }

  async start(): Promise<void> {
    const informer = await this.registry.informer(this.crdInfo);
    // Serve what is established first, before any status write: a restart serves at once.
    for (const crd of informer.list()) this.serve(crd);
    this.subscription = informer.subscribe({
      added: (o) => this.enqueue(o),
      updated: (o) => this.enqueue(o),
      deleted: (o) => this.forget(o),
    });
    await Promise.all([...this.queues.values()]);
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.stop();
    for (const timer of this.rechecks.values()) clearTimeout(timer);
    this.rechecks.clear();
  }

  private enqueue(o: ObjectVersion): void {
    const name = o.name;
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous.then(() => this.sync(name)).catch((err: unknown) => {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      console.error(`customresourcedefinition ${name}:`, err);
    });
    this.queues.set(name, next);
    void next.then(() => {
      if (this.queues.get(name) === next) this.queues.delete(name);
    });
  }

  private forget(o: ObjectVersion): void {
    const name = o.name;
    const entry = this.served.get(name);
    if (entry) {
      this.definitions.remove(entry.group, entry.resource);
      this.served.delete(name);
    }
    // Its names are free: the other CRDs of its group may now have theirs accepted.
    this.structuralProblems.delete(name);
    this.waitingForInstances.delete(name);
    this.requeueWaitingForNames(groupOf(o.object), name);
  }

  private enqueueName(name: string): void {
    this.enqueue({ name } as ObjectVersion);
  }

  private async current(name: string): Promise<JsonObject | undefined> {
    return (await this.registry.informer(this.crdInfo)).get(undefined, name);
  }

  private async sync(name: string): Promise<void> {
    if (this.stopped) return;
    const crd = await this.current(name);
    if (!crd) return;
    this.serve(crd);
    if (metadataOf(crd)['deletionTimestamp']) {
      if (finalizersOf(crd).includes(CLEANUP_FINALIZER)) await this.finalize(crd);
      return;
    }
    const next = copyJson(crd);
    await this.computeStatus(next);
    if (!jsonEqual(statusOfCrd(next), statusOfCrd(crd))) {
      await this.registry.update(this.crdInfo, undefined, name, next, 'status', WRITER);
      // A name this CRD gave up may be another's now.
      if (!jsonEqual(statusOfCrd(next)['acceptedNames'], statusOfCrd(crd)['acceptedNames'])) this.requeueGroup(crd);
    }
  }

  private requeueGroup(crd: JsonObject): void {
    this.requeueWaitingForNames(groupOf(crd), crdName(crd));
  }

  /**
   * Queues the other CRDs of `group` whose names a freed name may let through: a CRD with every
   * name accepted never looks at the others again (see computeStatus), so it is left alone — else
   * each new CRD of a group would resync every other one of it.
   */
  private requeueWaitingForNames(group: string, except: string): void {
    void this.registry.informer(this.crdInfo).then((informer) => {
      for (const other of this.othersOfGroup(informer, group, except)) if (other.needsNames) this.enqueueName(other.name);
    });
  }

  /**
   * What naming reads of the CRDs of `group` but `except`: derived once per stored version (a new
   * CRD in a group of a hundred would otherwise decode the hundred others). Only those of the
   * group are read (a CRD's name is `<plural>.<group>`, a plural has no dot).
   */
  private othersOfGroup(informer: Informer, group: string, except: string): NamesView[] {
    const out: NamesView[] = [];
    for (const n of informer.names()) {
      if (n === except || n.slice(n.indexOf('.') + 1) !== group) continue;
      const bytes = informer.stored(undefined, n);
      if (!bytes) continue;
      let view = this.namesViews.get(bytes);
      if (!view) {
        const crd = decodeJson(bytes);
        view = { name: n, group: groupOf(crd), accepted: namesOf(statusOfCrd(crd)['acceptedNames']), needsNames: this.needsNames(crd) };
        this.namesViews.set(bytes, view);
      }
      if (view.group === group) out.push(view);
    }
    return out;
  }

  /** Whether computeStatus would (re)consider the CRD's names against the others of its group. */
  private needsNames(crd: JsonObject): boolean {
    return !jsonEqual(namesOf(specOfCrd(crd)['names']), namesOf(statusOfCrd(crd)['acceptedNames'])) || !findCondition(crd, 'NamesAccepted');
  }

  /** Adds, changes or removes the CRD's resource definition as the CRD now says. */
  private serve(crd: JsonObject): void {
    const name = crdName(crd);
    const entry = this.served.get(name);
    const key = servingKey(crd);
    // Unchanged: not rebuilt (compiling the schemas is the dear part of a sync).
    if (entry?.key === key && isServed(crd)) return;
    const definition = customResourceDefinitionFor(crd, this.engine);
    if (!definition) {
      if (entry) {
        this.definitions.remove(entry.group, entry.resource);
        this.served.delete(name);
      }
      return;
    }
    if (entry?.key === key) return;
    // A CRD never replaces a built-in resource (the reference's own API is found first).
    const existing = this.definitions.definition(definition.group, definition.resource);
    if (existing?.builtin) return;
    if (entry && (entry.group !== definition.group || entry.resource !== definition.resource)) this.definitions.remove(entry.group, entry.resource);
    this.definitions.add(definition);
    this.served.set(name, { key, group: definition.group, resource: definition.resource });
  }

  /** Names, NamesAccepted, Established, NonStructuralSchema and the API approval condition, in place. */
  private async computeStatus(crd: JsonObject): Promise<void> {
    if (this.needsNames(crd)) {
      const informer = await this.registry.informer(this.crdInfo);
      const resources = new Set<string>();
      const kinds = new Set<string>();
      for (const { accepted: n } of this.othersOfGroup(informer, groupOf(crd), crdName(crd))) {
        for (const r of [n.plural, n.singular, ...n.shortNames]) resources.add(r);
        kinds.add(n.kind).add(n.listKind);
      }
      this.acceptNames(crd, resources, kinds);
    }
    if (isConditionTrue(crd, 'NamesAccepted') && !isConditionTrue(crd, 'Established')) {
      setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    }
    this.checkStructural(crd);
    this.checkApproval(crd);
  }

  private acceptNames(crd: JsonObject, resources: Set<string>, kinds: Set<string>): void {
    const requested = namesOf(specOfCrd(crd)['names']);
    const status = (crd['status'] ??= {}) as JsonObject;
    const accepted = namesOf(status['acceptedNames']);
    const fresh = (want: string, have: string, used: Set<string>) => want === have || !used.has(want);
    const condition: Condition = { type: 'NamesAccepted', status: 'Unknown' };
    const refuse = (reason: string, message: string) => Object.assign(condition, { status: 'False', reason, message });
    const next = { ...accepted };
    if (fresh(requested.plural, accepted.plural, resources)) next.plural = requested.plural;
    else refuse('PluralConflict', inUse(requested.plural));
    if (fresh(requested.singular, accepted.singular, resources)) next.singular = requested.singular;
    else refuse('SingularConflict', inUse(requested.singular));
    if (!jsonEqual(requested.shortNames, accepted.shortNames)) {
      const taken = requested.shortNames.filter((s) => !accepted.shortNames.includes(s) && resources.has(s));
      if (taken.length) refuse('ShortNamesConflict', taken.length === 1 ? inUse(taken[0]!) : `[${taken.map(inUse).join(', ')}]`);
      else next.shortNames = requested.shortNames;
    }
    if (fresh(requested.kind, accepted.kind, kinds)) next.kind = requested.kind;
    else refuse('KindConflict', inUse(requested.kind));
    if (fresh(requested.listKind, accepted.listKind, kinds)) next.listKind = requested.listKind;
    else refuse('ListKindConflict', inUse(requested.listKind));
    next.categories = requested.categories;
    if (condition.status === 'Unknown') Object.assign(condition, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    const names: JsonObject = { plural: next.plural, kind: next.kind };
    if (next.singular) names['singular'] = next.singular;
    if (next.shortNames.length) names['shortNames'] = next.shortNames;
    if (next.listKind) names['listKind'] = next.listKind;
    if (next.categories.length) names['categories'] = next.categories;
    status['acceptedNames'] = names;
    if (!sameCondition(findCondition(crd, 'NamesAccepted'), condition)) setCondition(crd, condition);
    if (!findCondition(crd, 'Established') && condition.status !== 'True') {
      setCondition(crd, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    }
  }

  private checkStructural(crd: JsonObject): void {
    const versions = versionsOf(crd);
    // The same schemas as at the CRD's last sync (a status write, a requeue): the same answer.
    const schemasKey = JSON.stringify(versions.map((v) => v.schema ?? null));
    const known = this.structuralProblems.get(crdName(crd));
    const problems = known?.key === schemasKey
      ? known.problems
      : versions.flatMap((v, i) => (v.schema ? this.engine.nonStructural(v.schema, `spec.versions[${i}].schema.openAPIV3Schema`) : []));
    this.structuralProblems.set(crdName(crd), { key: schemasKey, problems });
    if (problems.length === 0) {
      if (findCondition(crd, 'NonStructuralSchema')) removeCondition(crd, 'NonStructuralSchema');
      return;
    }
    const condition: Condition = { type: 'NonStructuralSchema', status: 'True', reason: 'Violations', message: problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]` };
    if (!sameCondition(findCondition(crd, 'NonStructuralSchema'), condition)) setCondition(crd, condition);
  }

  private checkApproval(crd: JsonObject): void {
    if (!isProtectedGroup(groupOf(crd))) return;
    const { state, reason } = approvalState(metadataOf(crd)['annotations']);
    const byState: Record<typeof state, Pick<Condition, 'status' | 'reason'>> = {
      Approved: { status: 'True', reason: 'ApprovedAnnotation' },
      Bypassed: { status: 'False', reason: 'UnapprovedAnnotation' },
      Missing: { status: 'False', reason: 'MissingAnnotation' },
      Invalid: { status: 'False', reason: 'InvalidAnnotation' },
    };
    const condition: Condition = { type: 'KubernetesAPIApprovalPolicyConformant', ...byState[state], message: reason };
    if (!sameCondition(findCondition(crd, condition.type), condition)) setCondition(crd, condition);
  }

  /** Deletes every custom resource of a deleted CRD, then lets the CRD go (the reference's CRD finalizer). */
  private async finalize(crd: JsonObject): Promise<void> {
    const name = crdName(crd);
    let next = copyJson(crd);
    const terminating = (reason: string, message: string, status: Condition['status'] = 'True') => setCondition(next, { type: 'Terminating', status, reason, message });
    terminating('InstanceDeletionInProgress', 'CustomResource deletion is in progress');
    next = await this.writeStatus(name, next, crd);
    const entry = this.served.get(name);
    const info = entry && this.definitions.versionsOf(entry.group, entry.resource)[0];
    if (isConditionTrue(crd, 'Established') && info) {
      let remaining: number;
      try {
        const list = await this.registry.list(info, undefined);
        const live = list.items.map((b) => metadataOf(JSON.parse(b.toString()) as JsonObject)).filter((m) => !m['deletionTimestamp']);
        const namespaces = new Set(live.map((m) => m['namespace'] as string | undefined));
        for (const ns of namespaces) await this.registry.deleteCollection(info, ns, {}, {});
        remaining = namespaces.size ? (await this.registry.list(info, undefined)).items.length : list.items.length;
      } catch (err) {
        terminating('InstanceDeletionFailed', `could not issue all deletes: ${err instanceof Error ? err.message : String(err)}`);
        await this.writeStatus(name, next, crd);
        throw err;
      }
      if (remaining > 0) {
        // Instances held by finalizers keep the CRD until they go: look again shortly. The reference
        // polls for a minute, then says it could not confirm and tries again.
        const since = this.waitingForInstances.get(name) ?? Date.now();
        this.waitingForInstances.set(name, since);
        if (Date.now() - since >= INSTANCE_WAIT_MS) terminating('InstanceDeletionCheck', 'could not confirm zero CustomResources remaining: timed out waiting for the condition');
        await this.writeStatus(name, next, crd);
        this.recheck(name);
        return;
      }
      this.waitingForInstances.delete(name);
      terminating('InstanceDeletionCompleted', 'removed all instances', 'False');
    } else {
      terminating('NeverEstablished', 'resource was never established', 'False');
    }
    next = await this.writeStatus(name, next, crd);
    // The finalizer goes last: with it, the CRD itself.
    const meta = metadataOf(next);
    meta['finalizers'] = finalizersOf(next).filter((f) => f !== CLEANUP_FINALIZER);
    await this.registry.update(this.crdInfo, undefined, name, next, undefined, WRITER);
  }

  /** Syncs a terminating CRD again after INSTANCE_RECHECK_MS (once, however often asked meanwhile). */
  private recheck(name: string): void {
    if (this.stopped || this.rechecks.has(name)) return;
    const timer = setTimeout(() => {
      this.rechecks.delete(name);
      this.enqueueName(name);
    }, INSTANCE_RECHECK_MS);
    timer.unref();
    this.rechecks.set(name, timer);
  }

  private async writeStatus(name: string, next: JsonObject, before: JsonObject): Promise<JsonObject> {
    if (jsonEqual(conditionsOf(next), conditionsOf(before)) && jsonEqual(statusOfCrd(next), statusOfCrd(before))) return next;
    const result = await this.registry.update(this.crdInfo, undefined, name, next, 'status', WRITER);
    return JSON.parse(result.body.toString()) as JsonObject;
  }
}
