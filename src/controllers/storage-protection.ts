// The pvc-protection and pv-protection controllers: the finalizers StorageObjectInUseProtection puts
// on claims and volumes are removed once a terminating claim is used by no running pod, and once a
// terminating volume is bound to no claim — so deleting them completes as in the reference.
import { StatusError } from '../errors.js';
import { metadataOf } from '../registry/objects.js';
import type { ObjectVersion, Subscription } from '../registry/informers.js';
import { type Registry, CONTROLLER_WRITER } from '../registry/store.js';
import type { ResourceInfo } from '../registry/definitions.js';
import { type JsonObject, isObject } from '../json.js';

const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const PV_PROTECTION = 'kubernetes.io/pv-protection';

function finalizersOf(obj: JsonObject): string[] {
  const f = metadataOf(obj)['finalizers'];
  return Array.isArray(f) ? f.map(String) : [];
}

/** The claims a pod uses: named ones, and the generated claims of its ephemeral volumes. */
function claimsOf(pod: JsonObject): string[] {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const volumes = Array.isArray(spec['volumes']) ? (spec['volumes'] as JsonObject[]) : [];
  const podName = String(metadataOf(pod)['name']);
  return volumes.flatMap((v) => {
    if (isObject(v['persistentVolumeClaim'])) return [String(v['persistentVolumeClaim']['claimName'] ?? '')];
    if (isObject(v['ephemeral'])) return [`${podName}-${String(v['name'])}`];
    return [];
  });
}

function isFinished(pod: JsonObject): boolean {
  const phase = isObject(pod['status']) ? pod['status']['phase'] : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
}

export class StorageProtectionController {
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly registry: Registry) {}

  private info(resource: string): ResourceInfo {
    return this.registry.definitions.lookup('', 'v1', resource)!;
  }

  async start(): Promise<void> {
    const claims = await this.registry.informer(this.info('persistentvolumeclaims'));
    const syncClaim = (claim: ObjectVersion) => this.run(() => this.syncClaim(claim.object));
    this.subscriptions.push(claims.subscribe({ added: syncClaim, updated: syncClaim }));
    const volumes = await this.registry.informer(this.info('persistentvolumes'));
    const syncVolume = (volume: ObjectVersion) => this.run(() => this.syncVolume(volume.object));
    this.subscriptions.push(volumes.subscribe({ added: syncVolume, updated: syncVolume }));
    // A pod that goes or finishes may free the terminating claims of its namespace.
    const pods = await this.registry.informer(this.info('pods'));
    const syncNamespace = (pod: ObjectVersion) => this.run(() => this.syncNamespace(pod.namespace!));
    const podChanged = (pod: ObjectVersion) => {
      if (isFinished(pod.frozen)) syncNamespace(pod);
    };
    this.subscriptions.push(pods.subscribe({ added: podChanged, updated: podChanged, deleted: syncNamespace }, { replay: false }));
  }

  stop(): void {
    for (const s of this.subscriptions) s.stop();
  }

  private run(work: () => Promise<void>): void {
    work().catch((err: unknown) => {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      console.error('storage protection:', err);
    });
  }

  private async syncNamespace(namespace: string): Promise<void> {
    const claims = await this.registry.informer(this.info('persistentvolumeclaims'));
    for (const claim of claims.list(namespace)) await this.syncClaim(claim);
  }

  private async syncClaim(claim: JsonObject): Promise<void> {
    const meta = metadataOf(claim);
    if (!meta['deletionTimestamp'] || !finalizersOf(claim).includes(PVC_PROTECTION)) return;
    const namespace = String(meta['namespace']);
    const name = String(meta['name']);
    const pods = (await this.registry.informer(this.info('pods'))).list(namespace);
    const inUse = pods.some((pod) => !isFinished(pod) && claimsOf(pod).includes(name));
    if (!inUse) await this.release(this.info('persistentvolumeclaims'), namespace, name, PVC_PROTECTION);
  }

  private async syncVolume(volume: JsonObject): Promise<void> {
    const meta = metadataOf(volume);
    if (!meta['deletionTimestamp'] || !finalizersOf(volume).includes(PV_PROTECTION)) return;
    const phase = isObject(volume['status']) ? volume['status']['phase'] : undefined;
    if (phase !== 'Bound') await this.release(this.info('persistentvolumes'), undefined, String(meta['name']), PV_PROTECTION);
  }

  private async release(info: ResourceInfo, namespace: string | undefined, name: string, finalizer: string): Promise<void> {
    await this.registry.patch(info, namespace, name, (current) => {
      const meta = metadataOf(current);
      const left = finalizersOf(current).filter((f) => f !== finalizer);
      if (left.length) meta['finalizers'] = left;
      else delete meta['finalizers'];
      return current;
    }, undefined, CONTROLLER_WRITER);
  }
}
