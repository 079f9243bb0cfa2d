// Which volume a claim gets, as the reference's binder chooses: among volumes whose access modes
// cover the claim's, the group with the fewest modes first; in it, a volume pre-bound to the claim,
// else the smallest Available, unclaimed one of the claim's class, volume mode and selector that
// holds the request.
import { convertLabelSelector } from '../../api/label-selector-object.js';
import { Quantity } from '../../api/quantity.js';
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject } from '../../json.js';
import {
  accessModesOf, claimClass, claimKey, claimRefOf, isDeleting, isVolumeBoundToClaim, nameOf, phaseOf, specOf,
  volumeClass, volumeModeOf,
} from './objects.js';

function storageOf(value: unknown): Quantity {
  return (isObject(value) ? Quantity.from(value['storage']) : undefined) ?? Quantity.zero();
}

export function requestedStorage(claim: JsonObject): Quantity {
  const resources = specOf(claim)['resources'];
  return storageOf(isObject(resources) ? resources['requests'] : undefined);
}

export function capacityOf(volume: JsonObject): Quantity {
  return storageOf(specOf(volume)['capacity']);
}

export function volumeModeMismatch(claim: JsonObject, volume: JsonObject): boolean {
  return volumeModeOf(claim) !== volumeModeOf(volume);
}

/** Whether the volume offers every access mode the claim asks for. */
export function coversAccessModes(claim: JsonObject, volume: JsonObject): boolean {
  const offered = new Set(accessModesOf(volume));
  return accessModesOf(claim).every((m) => offered.has(m));
}

/** Why a volume the claim names cannot be bound to it, or undefined when it can (the reference's texts). */
export function unsatisfiedBy(volume: JsonObject, claim: JsonObject): string | undefined {
  if (isDeleting(volume)) return `the volume is marked for deletion ${JSON.stringify(nameOf(volume))}`;
  if (capacityOf(volume).value() < requestedStorage(claim).value()) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeMismatch(claim, volume)) return 'incompatible volumeMode';
  if (!coversAccessModes(claim, volume)) return 'incompatible accessMode';
  return undefined;
}

/** The best volume in one access-mode group, or undefined. */
function matchIn(claim: JsonObject, volumes: JsonObject[], selects: (labels: Record<string, unknown>) => boolean, delayBinding: boolean): JsonObject | undefined {
  const requested = requestedStorage(claim);
  const requestedClass = claimClass(claim);
  let smallest: { volume: JsonObject; size: Quantity } | undefined;
  for (const volume of volumes) {
    if (volumeModeMismatch(claim, volume) || isDeleting(volume)) continue;
    const size = capacityOf(volume);
    if (isVolumeBoundToClaim(volume, claim)) {
      // Pre-bound to this claim: it, if big enough, whatever else is said.
      if (size.cmp(requested) < 0) continue;
      return volume;
    }
    if (delayBinding) continue; // the scheduler binds those
    if (phaseOf(volume) !== 'Available' || claimRefOf(volume)) continue;
    const labels = metadataOf(volume)['labels'];
    if (!selects(isObject(labels) ? labels : {})) continue;
    if (volumeClass(volume) !== requestedClass) continue;
    if (size.cmp(requested) >= 0 && (!smallest || smallest.size.cmp(size) > 0)) smallest = { volume, size };
  }
  return smallest?.volume;
}

/**
 * The volume the claim should be bound to, undefined when none fits; an error for a claim whose
 * selector does not convert (the reference's message).
 */
export function findBestMatch(claim: JsonObject, volumes: JsonObject[], delayBinding: boolean): { volume?: JsonObject } | { error: string } {
  let selects: (labels: Record<string, unknown>) => boolean = () => true;
  const selector = specOf(claim)['selector'];
  if (selector !== undefined && selector !== null) {
    const converted = convertLabelSelector(selector);
    if ('error' in converted) return { error: `error creating internal label selector for claim: ${claimKey(claim)}: ${converted.error}` };
    selects = (labels) => converted.matches(labels);
  }
  // Volumes grouped by their set of access modes; the groups that cover the claim, fewest modes first.
  const groups = new Map<string, { modes: number; volumes: JsonObject[] }>();
  for (const volume of volumes) {
    const modes = [...new Set(accessModesOf(volume))].sort();
    const key = modes.join(',');
    const group = groups.get(key) ?? { modes: modes.length, volumes: [] };
    group.volumes.push(volume);
    groups.set(key, group);
  }
  const wanted = accessModesOf(claim);
  const candidates = [...groups.entries()]
    .filter(([key]) => wanted.every((m) => key.split(',').includes(m)))
    .sort(([ka, a], [kb, b]) => a.modes - b.modes || (ka < kb ? -1 : 1));
  for (const [, group] of candidates) {
    const volume = matchIn(claim, group.volumes, selects, delayBinding);
    if (volume) return { volume };
  }
  return {};
}
