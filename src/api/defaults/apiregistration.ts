// Defaults of apiregistration.k8s.io/v1 APIServices.
import { ensureObject, objectAt, setIfNil, type Obj } from './fields.js';

export function defaultAPIService(apiService: Obj): void {
  const spec = ensureObject(apiService, 'spec');
  const service = spec && objectAt(spec, 'service');
  if (service) setIfNil(service, 'port', 443);
}
