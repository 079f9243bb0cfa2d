// Carrying out a slice plan, and knowing when the informer has caught up with it: slices made
// with generateName are only found again through the informer, so a sync that ran before the
// informer saw the previous sync's writes would make them twice. Each owner's writes are
// remembered until the informer shows them (or for a few seconds at most: a slice deleted by
// someone else before the informer showed the write never shows it); until then its sync waits.
import type { ResourceInfo } from '../../registry/definitions.js';
import type { Informer } from '../../registry/informers.js';
import { metadataOf } from '../../registry/objects.js';
import type { Registry, WriteContext } from '../../registry/store.js';
import { type JsonObject, decodeJson } from '../../json.js';
import { ignoreMissing } from './write-errors.js';
import type { SlicePlan, SliceWrite } from './slice-planner.js';

export interface SliceShape {
  /** A new slice (metadata and all) holding this content. */
  create(write: SliceWrite): JsonObject;
  /** The metadata a changed slice gets, from its current metadata. */
  metadata(current: JsonObject): JsonObject;
}

/**
 * A slice's lists; empty ones are not sent: the reference's protobuf client sends nothing for
 * them, so its managedFields do not name them (it reads them back as null; capstan leaves them out).
 */
export function sliceContent(write: SliceWrite): JsonObject {
  const content: JsonObject = {};
  if (write.endpoints.length) content['endpoints'] = write.endpoints;
  if (write.ports.length) content['ports'] = write.ports;
  return content;
}

const EXPECTATION_TTL_MS = 5_000;

interface Expected {
  /** The resourceVersion the informer must show at least, or 'gone'. */
  want: number | 'gone';
  until: number;
}

export class SliceExpectations {
  /** owner key → slice name → what the informer must show. */
  private readonly expected = new Map<string, Map<string, Expected>>();

  /** Whether the informer shows every write made for the owner (forgetting those it shows). */
  satisfied(owner: string, namespace: string, slices: Informer): boolean {
    const names = this.expected.get(owner);
    if (!names) return true;
    const at = Date.now();
    for (const [name, { want, until }] of names) {
      const stored = slices.stored(namespace, name);
      const seen = want === 'gone' ? stored === undefined : stored !== undefined && Number(metadataOf(decodeJson(stored))['resourceVersion']) >= want;
      if (seen || at > until) names.delete(name);
    }
    if (names.size === 0) this.expected.delete(owner);
    return names.size === 0;
  }

  forget(owner: string): void {
    this.expected.delete(owner);
  }

  private expect(owner: string, name: string, want: number | 'gone'): void {
    let names = this.expected.get(owner);
    if (!names) this.expected.set(owner, (names = new Map()));
    names.set(name, { want, until: Date.now() + EXPECTATION_TTL_MS });
  }

  /** Writes the plan: creates, then updates, then deletes. */
  async apply(registry: Registry, info: ResourceInfo, writer: WriteContext, owner: string, namespace: string, plan: SlicePlan, shape: SliceShape): Promise<void> {
    const remember = (body: Buffer) => {
      const meta = metadataOf(decodeJson(body));
      this.expect(owner, String(meta['name']), Number(meta['resourceVersion']));
    };
    for (const write of plan.create) remember((await registry.create(info, namespace, shape.create(write), writer)).body);
    for (const write of plan.update) {
      const result = await registry.patch(info, namespace, write.name, (cur) => {
        const next: JsonObject = { ...cur, metadata: shape.metadata(metadataOf(cur)), addressType: write.addressType };
        delete next['endpoints'];
        delete next['ports'];
        return { ...next, ...sliceContent(write) };
      }, undefined, writer);
      remember(result.body);
    }
    for (const name of plan.delete) {
      await ignoreMissing(() => registry.delete(info, namespace, name, { user: writer.user }));
      this.expect(owner, name, 'gone');
    }
  }
}
