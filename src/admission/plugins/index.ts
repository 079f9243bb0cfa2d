// The implemented admission plugins; the chain runs those enabled, in the reference's order.
import type { AdmissionPlugin } from '../types.js';

export function builtinPlugins(): AdmissionPlugin[] {
  return [];
}
