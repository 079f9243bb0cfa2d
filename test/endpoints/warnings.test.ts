// Warning headers (issue 14 item 1): written as the reference's warning recorder writes them
// (`"` and `\` escaped, UTF-8 as it is, control characters dropped, 4 KiB in all), so that no
// field name can fail an answer after its write was stored. Every kind of odd field name goes
// through every write verb: the answer is what was stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { goQuote } from '../../src/errors.js';
import { warningHeaderValues } from '../../src/endpoints/warnings.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk, type Reply } from '../helpers.js';

const CM = '/api/v1/namespaces/default/configmaps';

/** The Warning headers of an answer, as text (Node hands header bytes over one character each). */
function warningsOf(r: Reply): string[] {
  const raw = r.headers['warning'];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return values.map((v) => Buffer.from(v, 'latin1').toString('utf8'));
}

/** The text of a `299 - "…"` header, as the reference's client reads it back (ParseWarningHeader). */
function textOf(header: string): string {
  const m = /^299 - "((?:[^"\\]|\\.)*)"$/s.exec(header);
  assert.ok(m, `not a warning header: ${JSON.stringify(header)}`);
  return m[1]!.replace(/\\(.)/gs, '$1');
}

describe('warning headers as the reference writes them', { timeout: 10_000 }, () => {
  it('escapes quotes and backslashes and keeps every other character, as UTF-8 bytes', () => {
    const [header] = warningHeaderValues(['unknown field "q\\"💥é"']);
    assert.equal(Buffer.from(header!, 'latin1').toString('utf8'), '299 - "unknown field \\"q\\\\\\"💥é\\""');
    // Every character of the value is a byte Node may write.
    assert.match(header!, /^[\x20-\x7e\x80-\xff]*$/);
  });

  it('drops a text with a control character (C0, DEL, C1), and empty and repeated ones', () => {
    assert.deepEqual(warningHeaderValues(['a\nb', 'tab\there', 'del\u007f', 'nel\u0085', '', 'ok', 'ok']), ['299 - "ok"']);
  });

  it('cuts every text to 256 characters once 4,096 are written, and then drops what does not fit', () => {
    const texts = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'é'.repeat(298)}`);
    const headers = warningHeaderValues(texts).map((h) => textOf(Buffer.from(h, 'latin1').toString('utf8')));
    assert.equal(headers.length, 16);
    headers.forEach((text, i) => assert.equal(text, texts[i]!.slice(0, 256)));
    // Under the total, texts go out whole.
    assert.deepEqual(warningHeaderValues(['x'.repeat(4096)]).map((h) => h.length), [4096 + 8]);
  });
});

/** Field names no write may fail on after storing: outside Latin-1, control characters, quotes and backslashes, very long. */
const ODD_NAMES = ['zzz💥', 'ключ', 'café', 'a\u0001b', 'tab\tname', 'line\nbreak', 'del\u007f', 'nel\u0085', 'sep\u2028', 'q"uote', 'back\\slash', 'l'.repeat(10_000)];

type Verb = 'POST' | 'PUT' | 'merge' | 'strategic' | 'json' | 'apply';
const VERBS: Verb[] = ['POST', 'PUT', 'merge', 'strategic', 'json', 'apply'];

describe('every odd field name through every write verb', { timeout: 60_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  const write = (verb: Verb, name: string, field: string): Promise<Reply> => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '2' }, [field]: 1 };
    const patch = (type: string, body: unknown) => call(server.url, 'PATCH', `${CM}/${name}${type.includes('apply') ? '?fieldManager=odd' : ''}`, { body, headers: { 'Content-Type': type } });
    switch (verb) {
      case 'POST': return call(server.url, 'POST', CM, { body: object });
      case 'PUT': return call(server.url, 'PUT', `${CM}/${name}`, { body: object });
      case 'merge': return patch('application/merge-patch+json', { data: { a: '2' }, [field]: 1 });
      case 'strategic': return patch('application/strategic-merge-patch+json', { data: { a: '2' }, [field]: 1 });
      case 'json': return patch('application/json-patch+json', [{ op: 'replace', path: '/data/a', value: '2' }, { op: 'add', path: `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`, value: 1 }]);
      case 'apply': return patch('application/apply-patch+yaml', object);
    }
  };

  for (const verb of VERBS) {
    it(`${verb}: the status is the write's, the Warning headers are well formed, and what is stored is what was answered`, async () => {
      for (const [i, field] of ODD_NAMES.entries()) {
        const name = `${verb.toLowerCase()}-${i}`;
        const created = verb === 'POST' ? undefined : await mustOk(call(server.url, 'POST', CM, { body: { metadata: { name }, data: { a: '1' } } }), 201);
        const r = await write(verb, name, field);
        const shown = JSON.stringify(field.slice(0, 40));
        const stored = await call(server.url, 'GET', `${CM}/${name}`);
        if (verb === 'apply') {
          // Apply refuses an undeclared field (the reference's 500, a 400 here): nothing stored.
          assert.equal(r.status, 400, `${shown}: ${r.text.slice(0, 300)}`);
          assert.equal(r.json.reason, 'BadRequest');
          assert.match(r.json.message, /^failed to create typed patch object .*: field not declared in schema$/s);
          assert.deepEqual(stored.json, created!.json, shown);
          continue;
        }
        assert.equal(r.status, verb === 'POST' ? 201 : 200, `${shown}: ${r.text.slice(0, 300)}`);
        assert.equal(r.json.data.a, '2');
        assert.equal(Object.hasOwn(r.json, field), false, `${shown} was stored`);
        // The answer is the stored object, version and all.
        assert.equal(stored.status, 200);
        assert.deepEqual(stored.json, r.json, shown);
        const warnings = warningsOf(r).map(textOf);
        for (const w of warnings) assert.doesNotMatch(w, /[\u0000-\u001f\u007f-\u009f]/, shown);
        assert.ok(warnings.reduce((n, w) => n + [...w].length, 0) <= 4096, shown);
        // POST, PUT, merge and JSON patches name the field as the reference's decoder does (strconv.Quote).
        if (verb !== 'strategic' && field.length < 256) assert.deepEqual(warnings, [`unknown field ${goQuote(field)}`], shown);
        // A text past 4,096 characters is cut to 256.
        if (verb !== 'strategic' && field.length >= 256) assert.deepEqual(warnings, [`unknown field ${goQuote(field)}`.slice(0, 256)], shown);
      }
    });
  }
});
