// events.k8s.io/v1 has no defaulter; these are the fields its Event writes even when zero.
import { setIfNil, type Obj } from './fields.js';

export function defaultEvent(event: Obj): void {
  setIfNil(event, 'eventTime', null);
  setIfNil(event, 'regarding', {});
  setIfNil(event, 'deprecatedSource', {});
  setIfNil(event, 'deprecatedFirstTimestamp', null);
  setIfNil(event, 'deprecatedLastTimestamp', null);
}
