// The field manager: managedFields on every write, server-side apply, strategic merge patch.
export { recordUpdate, apply, type ManagedFieldsEntry, type GroupVersionKind, type UpdateOptions, type ApplyOptions } from './managed.js';
export { applyStrategicMergePatch } from './strategic.js';
export { onlyManagedFieldsTimesDiffer } from './timestamps.js';
export { schemaFor, isKnownKind } from '../api/schema.js';
