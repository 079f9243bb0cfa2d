// Which EndpointSlices to create, change and delete so that a Service's (or mirrored Endpoints')
// slices hold the desired endpoints, as the reference's reconcilers decide it: slices are grouped
// by address type and ports; an existing slice keeps the endpoints still wanted (in their desired
// form) and is deleted when none is; new endpoints go first into slices changed anyway, then into
// new slices of at most `maxPerSlice`, a last partial batch into the fullest unchanged slice with
// room. A slice to delete is reused for one to create (an update keeps the number of objects).
import { metadataOf } from '../../registry/objects.js';
import { type JsonObject, isObject, jsonEqual } from '../../json.js';

export const MAX_ENDPOINTS_PER_SLICE = 100;

/** Endpoints wanted with one set of ports, of one address type. */
export interface DesiredGroup {
  addressType: string;
  ports: JsonObject[];
  endpoints: JsonObject[];
}

export interface SliceWrite {
  addressType: string;
  ports: JsonObject[];
  endpoints: JsonObject[];
}

export interface SlicePlan {
  create: SliceWrite[];
  /** Existing slices (by name) given new content. */
  update: Array<SliceWrite & { name: string }>;
  delete: string[];
  /** Slices that stay as they are. */
  kept: JsonObject[];
}

function portsKey(addressType: string, ports: unknown): string {
  const list = Array.isArray(ports) ? ports.filter(isObject) : [];
  const canonical = list.map((p) => JSON.stringify([p['name'] ?? '', p['port'] ?? null, p['protocol'] ?? 'TCP', p['appProtocol'] ?? null])).sort();
  return `${addressType}\u0000${canonical.join('\u0001')}`;
}

/** An endpoint's identity: its addresses, hostname and the object it stands for. */
function endpointKey(endpoint: JsonObject): string {
  const addresses = Array.isArray(endpoint['addresses']) ? [...endpoint['addresses']].map(String).sort() : [];
  const ref = isObject(endpoint['targetRef']) ? endpoint['targetRef'] : {};
  return JSON.stringify([addresses, endpoint['hostname'] ?? '', ref['namespace'] ?? '', ref['name'] ?? '']);
}

function endpointsOf(slice: JsonObject): JsonObject[] {
  return Array.isArray(slice['endpoints']) ? slice['endpoints'].filter(isObject) : [];
}

/**
 * The plan from the existing slices (of the same owner) to the desired groups. `metaChanged`
 * says whether a slice's labels (or other metadata) must be written even when its endpoints stay.
 */
export function planSlices(existing: JsonObject[], desired: DesiredGroup[], metaChanged: (slice: JsonObject) => boolean, maxPerSlice = MAX_ENDPOINTS_PER_SLICE): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], delete: [], kept: [] };
  const existingByGroup = new Map<string, JsonObject[]>();
  for (const slice of existing) {
    const key = portsKey(String(slice['addressType']), slice['ports']);
    const list = existingByGroup.get(key);
    if (list) list.push(slice);
    else existingByGroup.set(key, [slice]);
  }
  for (const group of desired) {
    const key = portsKey(group.addressType, group.ports);
    const slices = existingByGroup.get(key) ?? [];
    existingByGroup.delete(key);
    planGroup(plan, group, slices, metaChanged, maxPerSlice);
  }
  for (const slices of existingByGroup.values()) for (const slice of slices) plan.delete.push(String(metadataOf(slice)['name']));

  return plan;
}

function planGroup(plan: SlicePlan, group: DesiredGroup, slices: JsonObject[], metaChanged: (slice: JsonObject) => boolean, max: number): void {
  const wanted = new Map<string, JsonObject>();
  for (const ep of group.endpoints) wanted.set(endpointKey(ep), ep);
  const placed = new Set<string>();
  const updating: Array<SliceWrite & { name: string }> = [];
  const unchanged: JsonObject[] = [];
  for (const slice of slices) {
    const kept: JsonObject[] = [];
    let changed = false;
    for (const ep of endpointsOf(slice)) {
      const k = endpointKey(ep);
      const desired = wanted.get(k);
      if (!desired || placed.has(k)) {
        changed = true;
        continue;
      }
      placed.add(k);
      if (!jsonEqual(ep, desired)) changed = true;
      kept.push(desired);
    }
    const name = String(metadataOf(slice)['name']);
    if (kept.length === 0) plan.delete.push(name);
    else if (changed || metaChanged(slice) || !jsonEqual(slice['ports'] ?? null, group.ports.length ? group.ports : null)) {
      updating.push({ name, addressType: group.addressType, ports: group.ports, endpoints: kept });
    } else unchanged.push(slice);
  }
  let remaining = group.endpoints.filter((ep) => !placed.has(endpointKey(ep)));
  for (const u of updating) {
    if (remaining.length === 0) break;
    const room = max - u.endpoints.length;
    if (room <= 0) continue;
    u.endpoints = [...u.endpoints, ...remaining.slice(0, room)];
    remaining = remaining.slice(room);
  }
  while (remaining.length >= max) {
    plan.create.push({ addressType: group.addressType, ports: group.ports, endpoints: remaining.slice(0, max) });
    remaining = remaining.slice(max);
  }
  if (remaining.length > 0) {
    // The fullest unchanged slice that can take the rest is changed rather than a new one made.
    const fits = unchanged
      .filter((s) => endpointsOf(s).length + remaining.length <= max)
      .sort((a, b) => endpointsOf(b).length - endpointsOf(a).length)[0];
    if (fits) {
      unchanged.splice(unchanged.indexOf(fits), 1);
      updating.push({ name: String(metadataOf(fits)['name']), addressType: group.addressType, ports: group.ports, endpoints: [...endpointsOf(fits), ...remaining] });
    } else plan.create.push({ addressType: group.addressType, ports: group.ports, endpoints: remaining });
  }
  plan.update.push(...updating);
  plan.kept.push(...unchanged);
}

/** A slice to delete of the same address type becomes the slice to create. */
export function reuseDeleted(plan: SlicePlan, existing: JsonObject[]): void {
  const typeOf = new Map(existing.map((s) => [String(metadataOf(s)['name']), String(s['addressType'])]));
  plan.create = plan.create.filter((c) => {
    const i = plan.delete.findIndex((name) => typeOf.get(name) === c.addressType);
    if (i < 0) return true;
    const [name] = plan.delete.splice(i, 1);
    plan.update.push({ ...c, name: name! });
    return false;
  });
}
