// events.k8s.io/v1 Events. The reference validates the one stored Event (in core/v1's shape) by
// the API the request came through: every Event keeps the legacy rules (core-misc.ts); one
// written through events.k8s.io must also be new-style on create, and may change only its
// series (and metadata) on update. Field paths are core/v1's names, as the reference's errors
// print them (involvedObject, message, source, …), except the reporter, `reportingController`.
import type { FieldError } from '../../errors.js';
import { fieldInvalid, fieldRequired } from '../../errors.js';
import { eventToCore } from '../conversion/events.js';
import { validateCoreEvent } from './core-misc.js';
import { goQuote } from '../selectable-fields.js';
import { immutable, invalidRendered, IMMUTABLE, num, obj, type Obj, present, semanticEqual, str } from './helpers.js';

const CONTROLLER = 'reportingController';

function seriesErrors(event: Obj): FieldError[] {
  const series = event['series'];
  if (!present(series)) return [];
  const errs: FieldError[] = [];
  if ((num(obj(series)['count']) ?? 0) < 2) errs.push(fieldInvalid('series.count', '', 'should be at least 2'));
  if (!present(obj(series)['lastObservedTime'])) errs.push(fieldRequired('series.lastObservedTime'));
  return errs;
}

/** A new events.k8s.io/v1 Event (in its own shape). */
export function validateEvent(event: Obj): FieldError[] {
  const core = eventToCore(event);
  const errs = validateCoreEvent(core, CONTROLLER);
  errs.push(...seriesErrors(core));
  if (!present(core['eventTime'])) errs.push(fieldRequired('eventTime'));
  const type = str(core['type']);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldInvalid('type', '', `has invalid value: ${type}`));
  if (present(core['firstTimestamp'])) errs.push(fieldInvalid('firstTimestamp', '', 'needs to be unset'));
  if (present(core['lastTimestamp'])) errs.push(fieldInvalid('lastTimestamp', '', 'needs to be unset'));
  if ((num(core['count']) ?? 0) !== 0) errs.push(fieldInvalid('count', '', 'needs to be unset'));
  const source = obj(core['source']);
  if (str(source['component']) !== '' || str(source['host']) !== '') errs.push(fieldInvalid('source', '', 'needs to be unset'));
  return errs;
}

// ---- how the reference prints the values of immutable fields (fmt's %#v, or the value's String()) ----

const REFERENCE_FIELDS = ['Kind', 'Namespace', 'Name', 'UID', 'APIVersion', 'ResourceVersion', 'FieldPath'];

function objectReference(v: unknown): string {
  if (!present(v)) return 'null';
  const ref = obj(v);
  const json = (goName: string) => (goName === 'UID' ? 'uid' : goName === 'APIVersion' ? 'apiVersion' : goName[0]!.toLowerCase() + goName.slice(1));
  return `core.ObjectReference{${REFERENCE_FIELDS.map((f) => `${f}:${goQuote(str(ref[json(f)]))}`).join(', ')}}`;
}

function eventSource(v: unknown): string {
  const source = obj(v);
  return `core.EventSource{Component:${goQuote(str(source['component']))}, Host:${goQuote(str(source['host']))}}`;
}

/** time.Time's String(): "2006-01-02 15:04:05.999999999 +0000 UTC", the zero time when unset. */
function goTime(v: unknown): string {
  const text = str(v);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:Z|[+-]00:00)$/.exec(text);
  if (!m) return present(v) ? text : '0001-01-01 00:00:00 +0000 UTC';
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  return `${m[1]} ${m[2]}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}

function changed(next: unknown, old: unknown, field: string, render: (v: unknown) => string): FieldError[] {
  return semanticEqual(next, old) ? [] : [invalidRendered(field, render(next), IMMUTABLE)];
}

/** Times compare as times (the same instant written with or without a fraction of zeros). */
function changedTime(next: unknown, old: unknown, field: string): FieldError[] {
  return goTime(next) === goTime(old) ? [] : [invalidRendered(field, goTime(next), IMMUTABLE)];
}

/** An update through events.k8s.io/v1: the legacy rules, then only series (and metadata) may change. */
export function validateEventUpdate(event: Obj, old: Obj): FieldError[] {
  const next = eventToCore(event);
  const prev = eventToCore(old);
  const errs = validateCoreEvent(next, CONTROLLER);
  if (!semanticEqual(next['series'], prev['series'])) errs.push(...seriesErrors(next));
  errs.push(
    ...changed(next['involvedObject'], prev['involvedObject'], 'involvedObject', objectReference),
    ...immutable(str(next['reason']), str(prev['reason']), 'reason'),
    ...immutable(str(next['message']), str(prev['message']), 'message'),
    ...changed(next['source'], prev['source'], 'source', eventSource),
    ...changedTime(next['firstTimestamp'], prev['firstTimestamp'], 'firstTimestamp'),
    ...changedTime(next['lastTimestamp'], prev['lastTimestamp'], 'lastTimestamp'),
    ...immutable(num(next['count']) ?? 0, num(prev['count']) ?? 0, 'count'),
    ...immutable(str(next['reason']), str(prev['reason']), 'reason'),
    ...immutable(str(next['type']), str(prev['type']), 'type'),
    ...changedTime(next['eventTime'], prev['eventTime'], 'eventTime'),
    ...immutable(str(next['action']), str(prev['action']), 'action'),
    ...changed(next['related'], prev['related'], 'related', objectReference),
    ...immutable(str(next['reportingComponent']), str(prev['reportingComponent']), CONTROLLER),
    ...immutable(str(next['reportingInstance']), str(prev['reportingInstance']), 'reportingInstance'),
  );
  return errs;
}
