// A request's options, decoded once: each option's accepted values, and the reference's answers
// (status and message) to values it refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import {
  checkPodConnectOptions, decodeCreateOptions, decodeDeleteOptions, decodeGetOptions, decodeListOptions, decodePatchOptions, decodeUpdateOptions,
  fieldManagerOf, fieldValidationLevel, int64Parameter,
} from '../../src/endpoints/options.js';
import { encodeContinue, readPlan } from '../../src/registry/readoptions.js';
import { StatusError } from '../../src/errors.js';
import { fixture } from '../helpers.js';

const q = (text: string) => new URLSearchParams(text);
const definitions = builtinResourceDefinitions();
const PODS = definitions.lookup('', 'v1', 'pods')!;
const CONFIGMAPS = definitions.lookup('', 'v1', 'configmaps')!;

/** The status and message of what `decode` throws. */
function refusal(decode: () => unknown): { code: number; message: string } {
  try {
    decode();
  } catch (err) {
    assert.ok(err instanceof StatusError, `not a StatusError: ${String(err)}`);
    return { code: err.code, message: err.message };
  }
  assert.fail('decoding did not fail');
}

/** The status and message the reference recorded for a request (test/fixtures/reference/errors). */
function recorded(name: string): { code: number; message: string; query: URLSearchParams } {
  const f = fixture(`errors/${name}`);
  const body = f.response.body as { message: string };
  return { code: f.response.status!, message: body.message, query: new URL(f.request.path, 'http://x').searchParams };
}

describe('CreateOptions, UpdateOptions and PatchOptions', { timeout: 10_000 }, () => {
  it('default to no dry run, no field manager, no field validation', () => {
    assert.deepEqual(decodeCreateOptions(q('')), { kind: 'CreateOptions', dryRun: false, fieldManager: '', fieldValidation: '' });
    assert.deepEqual(decodeUpdateOptions(q('')), { kind: 'UpdateOptions', dryRun: false, fieldManager: '', fieldValidation: '' });
    assert.deepEqual(decodePatchOptions(q(''), false), { kind: 'PatchOptions', dryRun: false, fieldManager: '', fieldValidation: '', force: false });
  });

  it('accept dryRun=All, a fieldManager of up to 128 bytes, and each fieldValidation', () => {
    assert.equal(decodeCreateOptions(q('dryRun=All')).dryRun, true);
    assert.equal(decodeCreateOptions(q('dryRun=All&dryRun=All')).dryRun, true);
    assert.equal(decodeUpdateOptions(q(`fieldManager=${'m'.repeat(128)}`)).fieldManager, 'm'.repeat(128));
    for (const v of ['', 'Ignore', 'Warn', 'Strict']) assert.equal(decodeCreateOptions(q(`fieldValidation=${v}`)).fieldValidation, v);
  });

  it('refuse another dryRun value', () => {
    assert.deepEqual(refusal(() => decodeCreateOptions(q('dryRun=Some'))), {
      code: 422, message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"',
    });
  });

  it('refuse a fieldManager longer than 128 bytes, counting bytes as the reference does', () => {
    const tooLong = { code: 422, message: 'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes' };
    assert.deepEqual(refusal(() => decodeUpdateOptions(q(`fieldManager=${'m'.repeat(129)}`))), tooLong);
    // 43 three-byte characters: 129 bytes.
    assert.deepEqual(refusal(() => decodeUpdateOptions(q(`fieldManager=${encodeURIComponent('€'.repeat(43))}`))), tooLong);
  });

  it('refuse a fieldManager with unprintable characters, each named by its byte position', () => {
    assert.deepEqual(refusal(() => decodeCreateOptions(q(`fieldManager=${encodeURIComponent('é\tx\n')}`))), {
      code: 422,
      message: 'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Invalid value: "é\\tx\\n": invalid character U+0009 (at position 2), ' +
        'fieldManager: Invalid value: "é\\tx\\n": invalid character U+000A (at position 4)]',
    });
  });

  it('refuse an unknown fieldValidation', () => {
    assert.deepEqual(refusal(() => decodePatchOptions(q('fieldValidation=strict'), false)), {
      code: 422, message: 'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    });
  });

  it('list every error of one request in one answer, in the reference\'s order', () => {
    assert.deepEqual(refusal(() => decodeCreateOptions(q(`fieldValidation=x&dryRun=y&fieldManager=${'m'.repeat(129)}`))), {
      code: 422,
      message: 'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: must have at most 128 bytes, dryRun: Unsupported value: "y": supported values: "All", ' +
        'fieldValidation: Unsupported value: "x": supported values: "", "Ignore", "Strict", "Warn"]',
    });
  });

  it('apply: needs a fieldManager, and may force', () => {
    const f = recorded('apply-without-field-manager');
    assert.deepEqual(refusal(() => decodePatchOptions(f.query, true)), { code: f.code, message: f.message });
    assert.equal(decodePatchOptions(q('fieldManager=me&force=true'), true).force, true);
    assert.equal(decodePatchOptions(q('fieldManager=me&force=1'), true).force, true);
    assert.equal(decodePatchOptions(q('fieldManager=me&force=false'), true).force, false);
    // Python's True, and any other value but "0" and "false" in any case, forces.
    for (const yes of ['True', 'TRUE', 'yes', '']) assert.equal(decodePatchOptions(q(`fieldManager=me&force=${yes}`), true).force, true, `force=${yes}`);
    for (const no of ['False', 'FALSE', '0']) assert.equal(decodePatchOptions(q(`fieldManager=me&force=${no}`), true).force, false, `force=${no}`);
    assert.equal(decodePatchOptions(q('fieldManager=me'), true).force, false);
  });

  it('other patches may not name force at all', () => {
    for (const force of ['true', 'false']) {
      assert.deepEqual(refusal(() => decodePatchOptions(q(`force=${force}`), false)), {
        code: 422, message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      });
    }
  });

  it('name the field manager after the parameter, else the user agent up to its first "/"', () => {
    assert.equal(fieldManagerOf(decodeCreateOptions(q('fieldManager=mine')), 'kubectl/v1.25.0 (linux/amd64)'), 'mine');
    assert.equal(fieldManagerOf(decodeCreateOptions(q('')), 'kubectl/v1.25.0 (linux/amd64)'), 'kubectl');
    assert.equal(fieldManagerOf(decodeCreateOptions(q('')), undefined), '');
    assert.equal(fieldManagerOf(decodeCreateOptions(q('')), 'x'.repeat(200)), 'x'.repeat(128));
  });

  it('check bodies at Warn unless Ignore or Strict is asked', () => {
    assert.equal(fieldValidationLevel(decodeCreateOptions(q(''))), 'Warn');
    assert.equal(fieldValidationLevel(decodeCreateOptions(q('fieldValidation=Warn'))), 'Warn');
    assert.equal(fieldValidationLevel(decodeCreateOptions(q('fieldValidation=Ignore'))), 'Ignore');
    assert.equal(fieldValidationLevel(decodeCreateOptions(q('fieldValidation=Strict'))), 'Strict');
  });
});

describe('DeleteOptions', { timeout: 10_000 }, () => {
  const body = (obj: unknown) => Buffer.from(JSON.stringify(obj));

  it('come from the JSON body and the query, the query winning', () => {
    assert.deepEqual(decodeDeleteOptions(q(''), Buffer.alloc(0)), {});
    assert.deepEqual(decodeDeleteOptions(q(''), body({
      kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 5, propagationPolicy: 'Foreground',
      preconditions: { uid: 'u', resourceVersion: '7' }, dryRun: ['All'],
    })), { gracePeriodSeconds: 5, propagationPolicy: 'Foreground', preconditions: { uid: 'u', resourceVersion: '7' }, dryRun: true });
    assert.deepEqual(decodeDeleteOptions(q('gracePeriodSeconds=0&propagationPolicy=Orphan&dryRun=All'), body({ gracePeriodSeconds: 30, propagationPolicy: 'Background' })),
      { gracePeriodSeconds: 0, propagationPolicy: 'Orphan', dryRun: true });
  });

  it('turn the deprecated orphanDependents into the policy it names', () => {
    assert.deepEqual(decodeDeleteOptions(q('orphanDependents=true'), Buffer.alloc(0)), { orphanDependents: true, propagationPolicy: 'Orphan' });
    assert.deepEqual(decodeDeleteOptions(q('orphanDependents=false'), Buffer.alloc(0)), { orphanDependents: false, propagationPolicy: 'Background' });
    assert.deepEqual(decodeDeleteOptions(q(''), body({ orphanDependents: false })), { orphanDependents: false, propagationPolicy: 'Background' });
    assert.deepEqual(decodeDeleteOptions(q('orphanDependents=True'), Buffer.alloc(0)), { orphanDependents: true, propagationPolicy: 'Orphan' });
    assert.deepEqual(decodeDeleteOptions(q('orphanDependents=False'), Buffer.alloc(0)), { orphanDependents: false, propagationPolicy: 'Background' });
  });

  it('refuse orphanDependents with a policy, an unknown policy and another dryRun', () => {
    assert.deepEqual(refusal(() => decodeDeleteOptions(q('orphanDependents=true&propagationPolicy=Foreground'), Buffer.alloc(0))), {
      code: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set',
    });
    assert.deepEqual(refusal(() => decodeDeleteOptions(q(''), body({ propagationPolicy: 'Sideways' }))), {
      code: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    });
    assert.deepEqual(refusal(() => decodeDeleteOptions(q(''), body({ dryRun: ['Some'] }))), {
      code: 422, message: 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"',
    });
    assert.deepEqual(refusal(() => decodeDeleteOptions(q('dryRun=x&propagationPolicy=Sideways'), Buffer.alloc(0))), {
      code: 422,
      message: 'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil", ' +
        'dryRun: Unsupported value: "x": supported values: "All"]',
    });
  });

  it('refuse a body that is not a JSON object', () => {
    assert.deepEqual(refusal(() => decodeDeleteOptions(q(''), Buffer.from('[1]'))), { code: 400, message: 'DeleteOptions must be a JSON object' });
    assert.deepEqual(refusal(() => decodeDeleteOptions(q(''), Buffer.from('{'))), { code: 400, message: 'error decoding patch: unexpected end of JSON input' });
  });
});

describe('GetOptions', { timeout: 10_000 }, () => {
  it('read resourceVersion as a number; "" is none', () => {
    assert.deepEqual(decodeGetOptions(q('')), {});
    assert.deepEqual(decodeGetOptions(q('resourceVersion=')), {});
    assert.deepEqual(decodeGetOptions(q('resourceVersion=0')), { resourceVersion: 0 });
    assert.deepEqual(decodeGetOptions(q('resourceVersion=42')), { resourceVersion: 42 });
  });

  it('refuse a resourceVersion that is not a number, in the reference\'s words', () => {
    const f = recorded('list-invalid-resource-version');
    assert.equal(refusal(() => decodeGetOptions(f.query)).message, f.message);
  });
});

describe('ListOptions', { timeout: 10_000 }, () => {
  it('default to the whole current collection', () => {
    assert.deepEqual(decodeListOptions(q(''), CONFIGMAPS, false), {});
    assert.deepEqual(readPlan(decodeListOptions(q(''), CONFIGMAPS, false)), { kind: 'current', limit: undefined, consistent: true });
  });

  it('parse selectors; empty ones select everything', () => {
    const options = decodeListOptions(q('labelSelector=app%3Dweb&fieldSelector=spec.host%3Dnode-1'), PODS, false);
    assert.equal(options.labelSelector?.matches({ app: 'web' }), true);
    assert.equal(options.labelSelector?.matches({ app: 'db' }), false);
    // The alias is renamed to the field it matches.
    assert.deepEqual(options.fieldSelector?.requirements, [{ field: 'spec.nodeName', op: '=', value: 'node-1' }]);
    assert.deepEqual(decodeListOptions(q('labelSelector=&fieldSelector='), PODS, false), {});
  });

  it('refuse malformed selectors and fields the resource cannot select, as the reference does', () => {
    for (const name of ['list-invalid-label-selector', 'list-invalid-label-selector-value', 'list-invalid-field-selector-syntax', 'list-unsupported-field-selector']) {
      const f = recorded(name);
      assert.deepEqual(refusal(() => decodeListOptions(f.query, CONFIGMAPS, false)), { code: f.code, message: f.message }, name);
    }
  });

  it('read resourceVersion, resourceVersionMatch and a positive limit', () => {
    assert.deepEqual(decodeListOptions(q('resourceVersion=5&resourceVersionMatch=Exact&limit=2'), CONFIGMAPS, false),
      { resourceVersion: 5, resourceVersionMatch: 'Exact', limit: 2 });
    assert.deepEqual(decodeListOptions(q('resourceVersion=5&resourceVersionMatch=NotOlderThan'), CONFIGMAPS, false),
      { resourceVersion: 5, resourceVersionMatch: 'NotOlderThan' });
    // (A limit that is no integer is refused: see the integer query parameters below.)
    for (const limit of ['0', '-1']) assert.deepEqual(decodeListOptions(q(`limit=${limit}`), CONFIGMAPS, false), {}, limit);
  });

  it('refuse resourceVersionMatch without a resourceVersion, with continue, with "0", of another value, or on a watch', () => {
    for (const name of ['list-resourceversionmatch-exact-without-rv', 'list-resourceversionmatch-invalid-value', 'list-resourceversionmatch-with-continue']) {
      const f = recorded(name);
      assert.deepEqual(refusal(() => decodeListOptions(f.query, CONFIGMAPS, false)), { code: f.code, message: f.message }, name);
    }
    assert.deepEqual(refusal(() => decodeListOptions(q('resourceVersion=0&resourceVersionMatch=Exact'), CONFIGMAPS, false)), {
      code: 422, message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    });
    assert.deepEqual(refusal(() => decodeListOptions(q('resourceVersion=3&resourceVersionMatch=NotOlderThan'), CONFIGMAPS, true)), {
      code: 422, message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
    });
  });

  it('decode a continue token, and refuse one that is not ours or comes with a resourceVersion', () => {
    const token = encodeContinue(12, 'b\u0000');
    assert.deepEqual(decodeListOptions(q(`limit=1&continue=${encodeURIComponent(token)}`), CONFIGMAPS, false), { limit: 1, continue: { revision: 12, start: 'b\u0000' } });
    for (const name of ['list-garbage-continue', 'list-continue-not-a-key']) {
      const f = recorded(name);
      assert.deepEqual(refusal(() => decodeListOptions(f.query, CONFIGMAPS, false)), { code: f.code, message: f.message }, name);
    }
    assert.deepEqual(refusal(() => decodeListOptions(q(`resourceVersion=3&continue=${encodeURIComponent(token)}`), CONFIGMAPS, false)), {
      code: 400, message: 'specifying resource version is not allowed when using continue',
    });
  });

  it('read a watch\'s bookmarks and timeout', () => {
    assert.deepEqual(decodeListOptions(q('allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=0'), CONFIGMAPS, true),
      { resourceVersion: 0, watch: true, allowWatchBookmarks: true, timeoutSeconds: 5 });
    assert.deepEqual(decodeListOptions(q('allowWatchBookmarks=false&timeoutSeconds=0'), CONFIGMAPS, true), { watch: true });
    assert.deepEqual(decodeListOptions(q('allowWatchBookmarks=True'), CONFIGMAPS, true), { watch: true, allowWatchBookmarks: true });
    assert.deepEqual(decodeListOptions(q('allowWatchBookmarks=FALSE'), CONFIGMAPS, true), { watch: true });
  });
});

describe('integer query parameters', { timeout: 10_000 }, () => {
  const bad = (text: string, why = 'invalid syntax') => ({ code: 400, message: `strconv.ParseInt: parsing ${JSON.stringify(text)}: ${why}` });

  it('are read as Go\'s strconv.ParseInt reads them: a sign and digits, 64 bits', () => {
    assert.equal(int64Parameter(q('limit=5'), 'limit'), 5);
    assert.equal(int64Parameter(q('limit=%2B5'), 'limit'), 5);
    assert.equal(int64Parameter(q('limit=-1'), 'limit'), -1);
    assert.equal(int64Parameter(q('limit=007'), 'limit'), 7);
    assert.equal(int64Parameter(q('limit=9223372036854775807'), 'limit'), 9223372036854775807);
    assert.equal(int64Parameter(q(''), 'limit'), undefined);
    for (const text of ['abc', '', '1.5', '1e3', ' 5', '0x10', '+', '1_000']) assert.deepEqual(refusal(() => int64Parameter(q(`limit=${encodeURIComponent(text)}`), 'limit')), bad(text), text);
    assert.deepEqual(refusal(() => int64Parameter(q('limit=9223372036854775808'), 'limit')), bad('9223372036854775808', 'value out of range'));
    assert.equal(int64Parameter(q('limit=-9223372036854775808'), 'limit'), -9223372036854775808);
    assert.deepEqual(refusal(() => int64Parameter(q('limit=-9223372036854775809'), 'limit')), bad('-9223372036854775809', 'value out of range'));
    // Left to right: an overflow before a stray character is the overflow.
    assert.deepEqual(refusal(() => int64Parameter(q('limit=99999999999999999999x'), 'limit')), bad('99999999999999999999x', 'value out of range'));
    assert.deepEqual(refusal(() => int64Parameter(q('limit=9x9999999999999999999'), 'limit')), bad('9x9999999999999999999'));
    // The message quotes as Go's %q does.
    assert.deepEqual(refusal(() => int64Parameter(q(`limit=${encodeURIComponent('a"\n')}`), 'limit')), { code: 400, message: 'strconv.ParseInt: parsing "a\\"\\n": invalid syntax' });
  });

  it('fail a list, a watch and a deletecollection before the selectors are read: timeoutSeconds, then limit', () => {
    assert.deepEqual(refusal(() => decodeListOptions(q('limit=abc'), CONFIGMAPS, false)), bad('abc'));
    assert.deepEqual(refusal(() => decodeListOptions(q('timeoutSeconds=x&limit=y&labelSelector=%3D%3D'), CONFIGMAPS, true)), bad('x'));
    assert.deepEqual(refusal(() => decodeListOptions(q('limit=y&labelSelector=%3D%3D'), CONFIGMAPS, false)), bad('y'));
    assert.equal(decodeListOptions(q('limit=-1'), CONFIGMAPS, false).limit, undefined);
    assert.equal(decodeListOptions(q('limit=2&timeoutSeconds=3'), CONFIGMAPS, true).limit, 2);
    assert.equal(decodeListOptions(q('timeoutSeconds=3'), CONFIGMAPS, true).timeoutSeconds, 3);
  });

  it('fail a delete: gracePeriodSeconds', () => {
    assert.deepEqual(refusal(() => decodeDeleteOptions(q('gracePeriodSeconds=soon'), Buffer.alloc(0))), bad('soon'));
    assert.equal(decodeDeleteOptions(q('gracePeriodSeconds=0'), Buffer.alloc(0)).gracePeriodSeconds, 0);
  });

  it('fail a pod log (sinceSeconds, tailLines, limitBytes) and a port forward (ports, 16 bits unsigned)', () => {
    assert.deepEqual(refusal(() => checkPodConnectOptions('log', q('tailLines=ten'))), bad('ten'));
    assert.deepEqual(refusal(() => checkPodConnectOptions('log', q('limitBytes=1k&sinceSeconds=x'))), bad('x'));
    checkPodConnectOptions('log', q('tailLines=10&limitBytes=100&sinceSeconds=5'));
    assert.deepEqual(refusal(() => checkPodConnectOptions('portforward', q('ports=8080,http'))), { code: 400, message: 'cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax' });
    assert.deepEqual(refusal(() => checkPodConnectOptions('portforward', q('ports=70000'))), { code: 400, message: 'cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range' });
    assert.deepEqual(refusal(() => checkPodConnectOptions('portforward', q('ports=-1'))), { code: 400, message: 'cannot convert to []int32: strconv.ParseUint: parsing "-1": invalid syntax' });
    checkPodConnectOptions('portforward', q('ports=80,443&ports=8080'));
    checkPodConnectOptions('exec', q('tailLines=ten'));
  });
});
