// Defaults of discovery.k8s.io/v1 EndpointSlices.
import { objectsAt, setIfNil, type Obj } from './fields.js';

export function defaultEndpointSlice(slice: Obj): void {
  // conditions is a struct value, written {} when empty.
  for (const endpoint of objectsAt(slice, 'endpoints')) setIfNil(endpoint, 'conditions', {});
  for (const port of objectsAt(slice, 'ports')) {
    setIfNil(port, 'name', '');
    setIfNil(port, 'protocol', 'TCP');
  }
}
