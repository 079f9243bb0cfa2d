// events.k8s.io/v1 Events: the strict rules of the new API (core/v1 events are in core-misc.ts).
import { type FieldError, fieldInvalid, fieldRequired } from '../../errors.js';
import { newStyleEventFields } from './core-misc.js';
import { num, obj, type Obj, present, str } from './helpers.js';

export function validateEvent(event: Obj): FieldError[] {
  const errs = newStyleEventFields(event, 'reportingController', 'note');
  if (!present(event['eventTime'])) errs.push(fieldRequired('eventTime'));
  const type = str(event['type']);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldInvalid('type', '', `has invalid value: ${type}`));
  if (present(event['deprecatedFirstTimestamp'])) errs.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (present(event['deprecatedLastTimestamp'])) errs.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if ((num(event['deprecatedCount']) ?? 0) !== 0) errs.push(fieldInvalid('count', '', 'needs to be unset'));
  const source = obj(event['deprecatedSource']);
  if (str(source['component']) !== '' || str(source['host']) !== '') errs.push(fieldInvalid('source', '', 'needs to be unset'));
  const series = event['series'];
  if (series !== undefined && series !== null) {
    const count = num(obj(series)['count']) ?? 0;
    if (count < 2) errs.push(fieldInvalid('series.count', '', 'should be at least 2'));
    if (!present(obj(series)['lastObservedTime'])) errs.push(fieldRequired('series.lastObservedTime'));
  }
  return errs;
}
