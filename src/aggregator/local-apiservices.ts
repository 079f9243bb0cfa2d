// The local APIServices, kept as the reference's autoregister and CRD registration controllers keep
// them: one per built-in group-version served at start (labelled automanaged=onstart: made or put
// back to the table's spec once, at start — deleted later, it comes back at the next start) and one
// per group-version of every CustomResourceDefinition (automanaged=true: made, corrected and
// deleted as the CRDs come and go). An APIService without the label is the user's: left alone.
import { SerialRun } from '../registry/serial-run.js';
import { isObject, jsonEqual, type JsonObject } from '../json.js';
import { StatusError } from '../errors.js';
import type { ResourceInfo } from '../registry/definitions.js';
import { InformerChanges, type Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { AGGREGATOR_WRITER, apiServiceInfo, AUTOMANAGED_LABEL, isAvailable } from './apiservice-objects.js';
import { apiServiceName, builtinPriority, CRD_PRIORITY, type Priority } from './priorities.js';

type Mode = 'onstart' | 'true';

interface Desired {
  group: string;
  version: string;
  priority: Priority;
  mode: Mode;
}

/** How long start() waits for the built-ins' APIServices to be Available before giving up the wait. */
const COMPLETION_WAIT_MS = 30_000;

export class LocalAPIServices {
  private readonly onStart = new Map<string, Desired>();
  /** The onstart names synced once: never touched again while this server runs. */
  private readonly synced = new Set<string>();
  private subscription: Subscription | undefined;
  private unsubscribeDefinitions: (() => void) | undefined;
  private readonly runs = new SerialRun(() => this.reconcile(), 'apiservice autoregistration');

  constructor(private readonly registry: Registry) {}

  /** Resolves once every built-in's APIService exists and is Available (the reference's autoregister-completion). */
  async start(): Promise<void> {
    const info = apiServiceInfo(this.registry);
    if (!info) return;
    for (const group of this.registry.definitions.groups()) {
      for (const version of group.versions) {
        if (!this.isBuiltin(group.name, version)) continue;
        const priority = builtinPriority(group.name, version);
        if (priority) this.onStart.set(apiServiceName(group.name, version), { group: group.name, version, priority, mode: 'onstart' });
      }
    }
    const informer = await this.registry.informer(info);
    this.subscription = informer.subscribe({ updated: () => this.runs.request(), deleted: () => this.runs.request() }, { replay: false });
    this.unsubscribeDefinitions = this.registry.definitions.subscribe(() => this.runs.request());
    this.runs.request();
    await this.runs.current();
    const deadline = Date.now() + COMPLETION_WAIT_MS;
    const changes = new InformerChanges([informer]);
    try {
      while (!this.runs.stopped && Date.now() < deadline && [...this.onStart.keys()].some((name) => !isAvailableNow(informer.get(undefined, name)))) {
        await changes.next(20);
      }
    } finally {
      changes.stop();
    }
  }

  async stop(): Promise<void> {
    this.subscription?.stop();
    this.unsubscribeDefinitions?.();
    await this.runs.stop();
  }

  private isBuiltin(group: string, version: string): boolean {
    return (this.registry.definitions.resources(group, version) ?? []).some((r) => r.definition.builtin);
  }

  /** The CRDs' group-versions now. */
  private always(): Map<string, Desired> {
    const out = new Map<string, Desired>();
    for (const group of this.registry.definitions.groups()) {
      for (const version of group.versions) {
        const resources = this.registry.definitions.resources(group.name, version) ?? [];
        if (resources.length > 0 && resources.every((r) => !r.definition.builtin)) {
          out.set(apiServiceName(group.name, version), { group: group.name, version, priority: CRD_PRIORITY, mode: 'true' });
        }
      }
    }
    return out;
  }

  private async reconcile(): Promise<void> {
    const info = apiServiceInfo(this.registry)!;
    const informer = await this.registry.informer(info);
    const always = this.always();
    const names = new Set([...this.onStart.keys(), ...always.keys(), ...informer.names()]);
    for (const name of names) {
      const desired = always.get(name) ?? this.onStart.get(name);
      await this.reconcileOne(info, name, desired, informer.get(undefined, name));
    }
  }

  private async reconcileOne(info: ResourceInfo, name: string, desired: Desired | undefined, actual: JsonObject | undefined): Promise<void> {
    const label = actual ? labelOf(actual) : undefined;
    try {
      if (!desired) {
        // Kept by us, and no longer wanted: gone.
        if (actual && label !== undefined) await this.registry.delete(info, undefined, name);
        return;
      }
      if (desired.mode === 'onstart' && this.synced.has(name)) return;
      if (actual && label === undefined) return;
      if (!actual) {
        await this.registry.create(info, undefined, apiServiceObject(name, desired), AGGREGATOR_WRITER);
      } else {
        const wanted = apiServiceObject(name, desired);
        if (!jsonEqual(actual.spec, wanted.spec) || label !== desired.mode) {
          const metadata = actual.metadata as JsonObject;
          const labels = { ...(isObject(metadata.labels) ? metadata.labels : {}), [AUTOMANAGED_LABEL]: desired.mode };
          await this.registry.update(info, undefined, name, { ...actual, metadata: { ...metadata, labels }, spec: wanted.spec }, undefined, AGGREGATOR_WRITER);
        }
      }
      if (desired.mode === 'onstart') this.synced.add(name);
    } catch (err) {
      // Someone else wrote meanwhile: the informer's event brings another pass.
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }
}

function labelOf(obj: JsonObject): string | undefined {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  const labels = isObject(metadata.labels) ? metadata.labels : {};
  const value = labels[AUTOMANAGED_LABEL];
  return typeof value === 'string' ? value : undefined;
}

function isAvailableNow(obj: JsonObject | undefined): boolean {
  return obj !== undefined && isAvailable(obj);
}

/** A local APIService as the reference makes it: no service, the table's priorities. */
export function apiServiceObject(name: string, desired: Desired): JsonObject {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name, labels: { [AUTOMANAGED_LABEL]: desired.mode } },
    spec: { group: desired.group, version: desired.version, groupPriorityMinimum: desired.priority.group, versionPriority: desired.priority.version },
  };
}
