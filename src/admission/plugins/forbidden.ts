// The 403 an admission plugin refuses a write with, shaped as the reference's admission.NewForbidden.
import { StatusError } from '../../errors.js';
import type { AdmissionAttributes } from '../types.js';

/** `pods "web" is forbidden: <message>`, with the resource's details. */
export function forbidden(attributes: AdmissionAttributes, message: string): StatusError {
  const { group, resource } = attributes.info;
  const qualified = group ? `${resource}.${group}` : resource;
  return new StatusError(403, 'Forbidden', `${qualified} "${attributes.name}" is forbidden: ${message}`, {
    name: attributes.name || undefined, group: group || undefined, kind: resource,
  });
}
