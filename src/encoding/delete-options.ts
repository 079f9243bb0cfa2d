// A DELETE's body as the reference decodes it into metav1.DeleteOptions (unknown fields ignored):
// a value of the wrong type fails the decode with Go's UnmarshalTypeError, and nothing is deleted.
import { scalarType, sliceOf, STRING, structType, type GoType } from './go-types.js';
import { strictDecode } from './strict-json.js';

const UID = scalarType('string', 'types.UID');

const DELETE_OPTIONS: GoType = structType('v1.DeleteOptions', {
  kind: STRING,
  apiVersion: STRING,
  gracePeriodSeconds: scalarType('int', 'int64', 64),
  preconditions: structType('v1.Preconditions', { uid: UID, resourceVersion: STRING }),
  orphanDependents: scalarType('bool', 'bool'),
  propagationPolicy: scalarType('string', 'v1.DeletionPropagation'),
  dryRun: sliceOf(STRING),
});

/** Go's complaint about a DeleteOptions body (valid JSON) with a value of the wrong type, or undefined. */
export function deleteOptionsTypeError(text: string): string | undefined {
  return strictDecode(text, DELETE_OPTIONS, false).error;
}
