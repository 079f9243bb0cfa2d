// core/v1 Event ⇄ events.k8s.io/v1 Event. The reference keeps one object for both (core/v1, under
// /registry/events) and converts through its internal Event, which has every field of both
// versions, so nothing is lost either way. The fields the two name differently:
//   involvedObject ⇄ regarding, message ⇄ note, source ⇄ deprecatedSource,
//   firstTimestamp ⇄ deprecatedFirstTimestamp, lastTimestamp ⇄ deprecatedLastTimestamp,
//   count ⇄ deprecatedCount, reportingComponent ⇄ reportingController;
// the rest (reason, type, eventTime, series, action, related, reportingInstance) keep their names.
// Each side comes out as Go writes its struct: its fields in the struct's order, zero values of
// omitempty fields left out, struct values (the reference, the source) and times without
// omitempty written even when empty ({} or null).
import { copyJson, type JsonObject } from '../../json.js';

/** How Go writes a field of the target struct. */
type Emit = 'always' | 'omitempty';

interface FieldMap {
  /** The field in the target version. */
  name: string;
  /** The same field in the other version. */
  from: string;
  emit: Emit;
  /** What Go writes for a field without omitempty when it holds nothing. */
  zero?: unknown;
}

const field = (name: string, from: string, emit: Emit, zero?: unknown): FieldMap => ({ name, from, emit, zero });

/** core/v1 Event's fields in its struct's order, each with the events.k8s.io/v1 field it comes from. */
const CORE_FIELDS: readonly FieldMap[] = [
  field('involvedObject', 'regarding', 'always', {}),
  field('reason', 'reason', 'omitempty'),
  field('message', 'note', 'omitempty'),
  field('source', 'deprecatedSource', 'always', {}),
  field('firstTimestamp', 'deprecatedFirstTimestamp', 'always', null),
  field('lastTimestamp', 'deprecatedLastTimestamp', 'always', null),
  field('count', 'deprecatedCount', 'omitempty'),
  field('type', 'type', 'omitempty'),
  field('eventTime', 'eventTime', 'always', null),
  field('series', 'series', 'omitempty'),
  field('action', 'action', 'omitempty'),
  field('related', 'related', 'omitempty'),
  field('reportingComponent', 'reportingController', 'always', ''),
  field('reportingInstance', 'reportingInstance', 'always', ''),
];

/** events.k8s.io/v1 Event's fields in its struct's order, each with the core/v1 field it comes from. */
const EVENTS_FIELDS: readonly FieldMap[] = [
  field('eventTime', 'eventTime', 'always', null),
  field('series', 'series', 'omitempty'),
  field('reportingController', 'reportingComponent', 'omitempty'),
  field('reportingInstance', 'reportingInstance', 'omitempty'),
  field('action', 'action', 'omitempty'),
  field('reason', 'reason', 'omitempty'),
  field('regarding', 'involvedObject', 'always', {}),
  field('related', 'related', 'omitempty'),
  field('note', 'message', 'omitempty'),
  field('type', 'type', 'omitempty'),
  field('deprecatedSource', 'source', 'always', {}),
  field('deprecatedFirstTimestamp', 'firstTimestamp', 'always', null),
  field('deprecatedLastTimestamp', 'lastTimestamp', 'always', null),
  field('deprecatedCount', 'count', 'omitempty'),
];

/** Go's zero value test for what an Event field can hold (null and absent are nil). */
function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || v === false;
}

function convert(obj: JsonObject, fields: readonly FieldMap[], kind: string, apiVersion: string): JsonObject {
  const out: JsonObject = { kind, apiVersion };
  if (obj['metadata'] !== undefined) out['metadata'] = copyJson(obj['metadata']);
  for (const f of fields) {
    const value = obj[f.from];
    if (f.emit === 'omitempty') {
      if (!isEmpty(value)) out[f.name] = copyJson(value);
    } else {
      out[f.name] = value === undefined || value === null ? copyJson(f.zero) : copyJson(value);
    }
  }
  return out;
}

const CORE_EVENT_API_VERSION = 'v1';
const EVENTS_API_VERSION = 'events.k8s.io/v1';

/** An events.k8s.io/v1 Event as core/v1 writes it. */
export function eventToCore(obj: JsonObject): JsonObject {
  return convert(obj, CORE_FIELDS, 'Event', CORE_EVENT_API_VERSION);
}

/** A core/v1 Event as events.k8s.io/v1 writes it. */
export function eventFromCore(obj: JsonObject): JsonObject {
  return convert(obj, EVENTS_FIELDS, 'Event', EVENTS_API_VERSION);
}

/**
 * An Event between the two apiVersions that serve it (the same object when both are the same);
 * events.k8s.io/v1beta1 has v1's shape (capstan reads it only as a removed version).
 */
export function convertEvent(obj: JsonObject, fromApiVersion: string, toApiVersion: string): JsonObject {
  const fromCore = fromApiVersion === CORE_EVENT_API_VERSION;
  const toCore = toApiVersion === CORE_EVENT_API_VERSION;
  if (fromCore === toCore) return { ...obj, apiVersion: toApiVersion };
  const out = toCore ? eventToCore(obj) : eventFromCore(obj);
  out['apiVersion'] = toApiVersion;
  return out;
}
