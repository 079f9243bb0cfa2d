// The ConversionReview sent to a CRD's conversion webhook and the checks of its answer, in the
// reference's words: review kind and uid (v1 only), result status, each converted object's
// apiVersion, kind, name, namespace and uid, and metadata other than labels and annotations kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildConversionReview, checkConvertedObject, ConvertedObjectError, convertedObjectsOf, gvkText, ReviewError, reviewVersionOf, UnwrappedReviewError,
} from '../../src/apiextensions/conversion-review.js';

const UID = '0b6c1c8e-3d4c-4f3e-9a57-2f1f4b1b9d11';
const original = {
  apiVersion: 'stable.example.com/v1', kind: 'CronTab',
  metadata: { name: 'c1', namespace: 'default', uid: 'u-1', resourceVersion: '7', labels: { app: 'a' }, annotations: { note: 'n' } },
  spec: { cronSpec: '* * * * *' },
};
const converted = (extra: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { ...original.metadata, ...metadata }, spec: { schedule: '* * * * *' }, ...extra,
});
const review = (response: Record<string, unknown>, head: Record<string, unknown> = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }) => ({ ...head, response });
const ok = (objects: unknown[]) => ({ uid: UID, convertedObjects: objects, result: { status: 'Success' } });

function throwsWith(fn: () => unknown, type: new (...args: never[]) => Error, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof type, `${String(err)} is not a ${type.name}`);
    assert.equal(err.message, message);
    return true;
  });
}

describe('conversion review', () => {
  it('sends the first review version it speaks, with the reference request and empty response', { timeout: 1000 }, () => {
    assert.equal(reviewVersionOf(['v2', 'v1beta1', 'v1']), 'v1beta1');
    assert.equal(reviewVersionOf(['v1']), 'v1');
    throwsWith(() => reviewVersionOf(['v9']), UnwrappedReviewError, 'no supported conversion review versions');
    assert.deepEqual(buildConversionReview('v1', UID, 'stable.example.com/v2', [original]), {
      kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1',
      request: { uid: UID, desiredAPIVersion: 'stable.example.com/v2', objects: [original] },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    });
    assert.equal(gvkText('stable.example.com/v1', 'CronTab'), 'stable.example.com/v1, Kind=CronTab');
  });

  it('checks the review answered: kind, uid, result', { timeout: 1000 }, () => {
    assert.deepEqual(convertedObjectsOf('v1', UID, review(ok([converted()]))), [converted()]);
    throwsWith(() => convertedObjectsOf('v1', UID, { response: ok([]) }), ReviewError, `Object 'Kind' is missing in '{"response":{"uid":"${UID}","convertedObjects":[],"result":{"status":"Success"}}}'`);
    throwsWith(() => convertedObjectsOf('v1', UID, review(ok([]), { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview' })), ReviewError,
      'expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview');
    throwsWith(() => convertedObjectsOf('v1', UID, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }), ReviewError, 'no response provided');
    throwsWith(() => convertedObjectsOf('v1', UID, review({ ...ok([]), uid: 'other' })), ReviewError, `expected response.uid="${UID}", got "other"`);
    throwsWith(() => convertedObjectsOf('v1', UID, review({ uid: UID, result: { status: 'Failure', message: 'no way' } })), ReviewError, 'no way');
    throwsWith(() => convertedObjectsOf('v1', UID, review({ uid: UID, result: {} })), ReviewError, "response.result.status was '', not 'Success'");
    // v1beta1: neither the review's kind nor its uid is checked, as the reference keeps it.
    assert.deepEqual(convertedObjectsOf('v1beta1', UID, review({ ...ok([converted()]), uid: 'other' }, { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview' })), [converted()]);
  });

  it('checks each converted object and keeps the original metadata but labels and annotations', { timeout: 1000 }, () => {
    const answered = checkConvertedObject(original, converted({}, { resourceVersion: '99', generation: 5, labels: { app: 'b' }, annotations: undefined }), 'stable.example.com/v2');
    assert.deepEqual(answered, {
      apiVersion: 'stable.example.com/v2', kind: 'CronTab',
      metadata: { name: 'c1', namespace: 'default', uid: 'u-1', resourceVersion: '7', labels: { app: 'b' } },
      spec: { schedule: '* * * * *' },
    });
    throwsWith(() => checkConvertedObject(original, converted({ apiVersion: 'stable.example.com/v1' }), 'stable.example.com/v2'), ConvertedObjectError,
      'invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)');
    throwsWith(() => checkConvertedObject(original, converted({ kind: 'Other' }), 'stable.example.com/v2'), ConvertedObjectError, 'invalid object at index 0: invalid kind (expected CronTab, received Other)');
    throwsWith(() => checkConvertedObject(original, converted({}, { namespace: 'x' }), 'stable.example.com/v2'), ConvertedObjectError, 'invalid object: must have the same namespace: default != x');
    throwsWith(() => checkConvertedObject(original, converted({}, { uid: 'u-2' }), 'stable.example.com/v2'), ConvertedObjectError, 'invalid object: must have the same UID: u-1 != u-2');
    throwsWith(() => checkConvertedObject(original, { apiVersion: 'stable.example.com/v2', kind: 'CronTab' }, 'stable.example.com/v2'), ConvertedObjectError, 'invalid object: must have the same name: c1 != ');
    throwsWith(() => checkConvertedObject(original, converted({}, { labels: { app: 3 } }), 'stable.example.com/v2'), ConvertedObjectError,
      'invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object');
    throwsWith(() => checkConvertedObject(original, converted({}, { labels: { app: 'not valid!' } }), 'stable.example.com/v2'), ConvertedObjectError,
      /* the label value rule, as validateLabels words it */ `invalid metadata: metadata.labels: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`);
    throwsWith(() => checkConvertedObject(original, { apiVersion: 'stable.example.com/v2' }, 'stable.example.com/v2'), UnwrappedReviewError, `Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v2"}'`);
  });
});
