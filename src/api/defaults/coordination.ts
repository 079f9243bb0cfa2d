// coordination.k8s.io/v1 has no defaulter; a Lease's spec is a struct value, written {} when empty.
import { ensureObject } from './fields.js';
import type { DefaulterTable } from './types.js';

export const COORDINATION: DefaulterTable = {
  'v1/Lease': (obj) => void ensureObject(obj, 'spec'),
};
