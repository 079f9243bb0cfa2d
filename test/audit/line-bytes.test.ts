// An event written as bytes straight into the log's buffer (AuditRecord.writeLine, and writeTo through a sink) is byte for
// byte JSON.stringify of the same audit.k8s.io/v1 Event, in the reference's field order, for odd
// inputs: unicode, quotes and backslashes, control characters, lone surrogates, long URIs,
// missing fields; and a second stage copied from the first line is still right once the buffer
// it was in has been reused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from '../../src/api/user.js';
import { newMadeAuditId } from '../../src/audit/audit-id.js';
import { EncodedLineQueue, type EncodedLines } from '../../src/audit/encoded-queue.js';
import type { Level, Stage } from '../../src/audit/policy.js';
import { decodedLines } from './decoded-lines.js';
import { AuditRecord, BodyCache, microTime, type LineSink, type ObjectRef, type RequestFacts } from '../../src/audit/record.js';

const RECEIVED = 1_795_000_000_000_007; // µs
const LATER = RECEIVED + 1_234_567;

/** The event as the reference's encoder writes it: JSON.stringify of the fields in Go's order, empty ones left out. */
function expected(level: Level, stage: Stage, f: RequestFacts, more: {
  impersonated?: UserInfo; status?: Record<string, unknown>; annotations?: Record<string, string>; stageMicros: number;
}): string {
  const user = (u: UserInfo) => {
    const o: Record<string, unknown> = {};
    if (u.name) o['username'] = u.name;
    if (u.uid) o['uid'] = u.uid;
    if (u.groups.length) o['groups'] = u.groups;
    if (u.extra && Object.keys(u.extra).length) o['extra'] = Object.fromEntries(Object.keys(u.extra).sort().map((k) => [k, u.extra![k]]));
    return o;
  };
  const e: Record<string, unknown> = { kind: 'Event', apiVersion: 'audit.k8s.io/v1', level, auditID: f.auditID, stage, requestURI: f.requestURI, verb: f.verb, user: user(f.user) };
  if (more.impersonated) e['impersonatedUser'] = user(more.impersonated);
  if (f.sourceIPs.length) e['sourceIPs'] = f.sourceIPs;
  if (f.userAgent) e['userAgent'] = f.userAgent;
  if (f.objectRef) {
    const ref: Record<string, string> = {};
    for (const k of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) if (f.objectRef[k]) ref[k] = f.objectRef[k]!;
    e['objectRef'] = ref;
  }
  if (stage !== 'RequestReceived' && more.status) e['responseStatus'] = { metadata: {}, ...more.status };
  e['requestReceivedTimestamp'] = microTime(f.receivedMicros);
  e['stageTimestamp'] = microTime(more.stageMicros);
  if (more.annotations && Object.keys(more.annotations).length) e['annotations'] = Object.fromEntries(Object.keys(more.annotations).sort().map((k) => [k, more.annotations![k]]));
  return `${JSON.stringify(e)}\n`;
}

function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    auditID: '3f1c2a4e-0000-4000-8000-000000000001', requestURI: '/api/v1/namespaces/default/configmaps/x', verb: 'get',
    user: { name: 'alice', groups: ['system:authenticated'] }, sourceIPs: ['127.0.0.1'], userAgent: 'kubectl/v1.25.0',
    objectRef: { resource: 'configmaps', namespace: 'default', name: 'x', apiVersion: 'v1' }, receivedMicros: RECEIVED, ...over,
  };
}

const ODD = [
  'zoë ✓ 日本語', 'emoji 𝄞😀', 'quote " and \\ backslash', 'controls \u0000\u0001\b\f\n\r\t\u001f end', 'del \u007f and nbsp \u00a0',
  'lone \ud800 high', 'lone \udfff low', 'html <a href="x">&amp;</a>', '\u2028\u2029 separators', '',
];

function config(level: Level) {
  return { level, omitStages: new Set<Stage>(), omitManagedFields: false };
}

/** The line writeLine makes, in a buffer of its own. */
function written(record: AuditRecord, stage: Stage, micros: number, epoch = 0, buf?: Buffer, at = 0): string {
  const room = record.lineRoom(stage);
  assert.ok(room > 0);
  const b = buf ?? Buffer.alloc(room + at + 16, 0xff);
  const end = record.writeLine(stage, micros, b, at, epoch);
  assert.ok(end - at <= room, `${end - at} bytes written, ${room} reserved`);
  return b.toString('utf8', at, end);
}

/**
 * The line writeTo writes through a sink over `buf` at `at` (as the log's queue, in `epoch`),
 * checked to stay within the room it reserved; or the text it pushed.
 */
function writtenTo(record: AuditRecord, stage: Stage, micros: number, epoch: number, buf: Buffer, at: number, maxRoom = 1 << 20): string {
  let reserved = -1;
  let line: string | undefined;
  const sink: LineSink = {
    reserve: (room) => {
      reserved = room;
      return buf;
    },
    offset: at,
    epoch,
    commit: (end) => {
      assert.ok(end - at <= reserved, `${end - at} bytes written, ${reserved} reserved`);
      line = buf.toString('utf8', at, end);
      return true;
    },
    push: (text) => {
      line = text;
      return true;
    },
  };
  assert.equal(record.writeTo(sink, stage, micros, maxRoom), true);
  return line!;
}

describe('audit lines written as bytes', { timeout: 20_000 }, () => {
  it('are JSON.stringify of the event for odd strings in every field', () => {
    for (const odd of ODD) {
      const objectRef: ObjectRef = { resource: 'configmaps', namespace: odd, name: `n${odd}`, apiGroup: odd ? `g${odd}` : '', subresource: odd };
      const f = facts({
        auditID: `id-${odd}`, requestURI: `/api/v1/x?labelSelector=${odd}`, verb: 'list', user: { name: `u${odd}`, uid: odd, groups: [odd, 'g'], extra: { [`k${odd}`]: [odd], a: ['1'] } },
        sourceIPs: ['10.0.0.1', odd || '::1'], userAgent: odd, objectRef,
      });
      for (const level of ['Metadata', 'Request'] as const) {
        const record = new AuditRecord(config(level), { ...f, objectRef: { ...objectRef } });
        const impersonated = { name: `imp${odd}`, groups: [odd] };
        record.logImpersonatedUser(impersonated);
        record.annotate(`z/${odd}`, odd);
        record.annotate('authorization.k8s.io/decision', 'allow');
        assert.equal(written(record, 'RequestReceived', RECEIVED), expected(level, 'RequestReceived', f, { impersonated, annotations: { [`z/${odd}`]: odd, 'authorization.k8s.io/decision': 'allow' }, stageMicros: RECEIVED }));
        record.responded(403);
        assert.equal(written(record, 'ResponseComplete', LATER), expected(level, 'ResponseComplete', f, { impersonated, status: { code: 403 }, annotations: { [`z/${odd}`]: odd, 'authorization.k8s.io/decision': 'allow' }, stageMicros: LATER }));
        assert.equal(written(record, 'ResponseComplete', LATER), record.line('ResponseComplete', LATER));
      }
    }
  });

  it('leave out what is missing, write long URIs whole, and keep a Status\'s fields and admission annotations', () => {
    const long = `/api/v1/namespaces/default/pods?fieldSelector=${'spec.nodeName%3Dnode-1,'.repeat(2000)}`;
    const f = facts({ requestURI: long, user: { name: '', groups: [] }, sourceIPs: [], userAgent: '', objectRef: undefined });
    const record = new AuditRecord(config('Metadata'), f);
    assert.equal(written(record, 'RequestReceived', RECEIVED), expected('Metadata', 'RequestReceived', f, { stageMicros: RECEIVED }));
    record.admissionAnnotations['pod-security.kubernetes.io/enforce-policy'] = 'restricted:latest';
    record.annotate('authorization.k8s.io/reason', 'RBAC: allowed by "x" ✓');
    const s = { status: 'Failure', message: 'pods "p\u0001" is forbidden: ✓ "quoted"', reason: 'Forbidden', details: { name: 'p', kind: 'pods' } };
    record.logResponseJson(Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, ...s, code: 403 })));
    record.responded(403);
    const annotations = { 'pod-security.kubernetes.io/enforce-policy': 'restricted:latest', 'authorization.k8s.io/reason': 'RBAC: allowed by "x" ✓' };
    assert.equal(written(record, 'ResponseComplete', LATER), expected('Metadata', 'ResponseComplete', f, { status: { ...s, code: 403 }, annotations, stageMicros: LATER }));
  });

  it('requests to one URI that differ in any other field each get their own fields, over one connection\'s cache or none', () => {
    const uri = '/api/v1/namespaces/default/configmaps/same';
    const base = facts({ requestURI: uri });
    const variants: RequestFacts[] = [
      base, base, { ...base, verb: 'delete' }, { ...base, user: { name: 'alice', groups: ['other'] } }, { ...base, user: { name: 'bob', groups: ['system:authenticated'] } },
      { ...base, user: { name: 'alice', uid: 'u', groups: ['system:authenticated'] } }, { ...base, user: { name: 'alice', groups: ['system:authenticated'], extra: { a: ['b'] } } },
      { ...base, sourceIPs: ['10.0.0.2'] }, { ...base, sourceIPs: ['127.0.0.1', '10.0.0.2'] }, { ...base, sourceIPs: [] }, { ...base, userAgent: 'other' }, { ...base, userAgent: '' },
      { ...base, objectRef: undefined }, { ...base, objectRef: { ...base.objectRef, name: 'other' } }, { ...base, objectRef: { ...base.objectRef, apiGroup: 'apps' } },
      { ...base, objectRef: { ...base.objectRef, subresource: 'status' } }, { ...base, objectRef: { ...base.objectRef, namespace: '' } }, base,
    ];
    // Without a connection's cache; then all over one connection's, each variant after the one
    // before it and after the base (a repeat of the base is copied from the cache).
    const bodyCache = new BodyCache();
    const sequences = [variants, variants, variants.flatMap((v) => [base, v])];
    for (const [n, sequence] of sequences.entries()) {
      for (const [i, v] of sequence.entries()) {
        const f = { ...v, auditID: `id-${i}`, objectRef: v.objectRef && { ...v.objectRef }, bodyCache: n === 0 ? undefined : bodyCache };
        const record = new AuditRecord(config('Metadata'), f);
        const bytesAt = (i * 37) % 100;
        assert.equal(written(record, 'RequestReceived', RECEIVED, 0, Buffer.alloc(8192, 0xff), bytesAt), expected('Metadata', 'RequestReceived', f, { stageMicros: RECEIVED }), `sequence ${n}, variant ${i}`);
        record.responded(200);
        assert.equal(written(record, 'ResponseComplete', LATER), expected('Metadata', 'ResponseComplete', f, { status: { code: 200 }, stageMicros: LATER }), `sequence ${n}, variant ${i}`);
      }
    }
    // The cached user changed under the same name: the new groups are written.
    const again = { ...base, auditID: 'id-again', user: { name: 'alice', groups: ['changed'] }, bodyCache };
    assert.equal(written(new AuditRecord(config('Metadata'), again), 'RequestReceived', RECEIVED), expected('Metadata', 'RequestReceived', again, { stageMicros: RECEIVED }));
    // Impersonation, odd strings, a URI too long to keep, then the base again: each its own.
    for (const odd of [...ODD, 'x'.repeat(10_000)]) {
      for (const impersonated of [undefined, { name: `imp${odd}`, groups: [odd] }]) {
        // (A user agent past 1024 characters is cut short, as the reference does.)
        const f = { ...base, requestURI: `${uri}?${odd}`, userAgent: odd.slice(0, 1000), objectRef: { ...base.objectRef, name: odd }, bodyCache };
        for (const g of [f, f, { ...base, bodyCache }]) {
          const record = new AuditRecord(config('Metadata'), { ...g, objectRef: { ...g.objectRef } });
          if (impersonated) record.logImpersonatedUser(impersonated);
          assert.equal(written(record, 'RequestReceived', RECEIVED), expected('Metadata', 'RequestReceived', g, { impersonated, stageMicros: RECEIVED }));
          // The authorizer's annotations, the same as the last request's or not.
          const annotations: Record<string, string> = { 'authorization.k8s.io/decision': g === f ? 'allow' : 'forbid', 'authorization.k8s.io/reason': odd };
          if (odd === 'zoë ✓ 日本語') annotations[`k${odd}`] = odd;
          for (const [k, v] of Object.entries(annotations)) record.annotate(k, v);
          record.responded(200);
          assert.equal(written(record, 'ResponseComplete', LATER), expected('Metadata', 'ResponseComplete', g, { impersonated, status: { code: 200 }, annotations, stageMicros: LATER }));
        }
      }
    }
  });

  for (const via of ['writeLine', 'writeTo'] as const) it(`a connection's repeated requests, written from its last line at each stage, get their own ID, timestamps, status and annotations (${via})`, () => {
    const bodyCache = new BodyCache();
    const base = facts();
    const allow = { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' };
    interface Request { level: Level; auditID: string; received: number; stage: number; status?: Record<string, unknown>; annotations: Record<string, string>; requestURI: string }
    const usual: Request = { level: 'Metadata', auditID: '3f1c2a4e-0000-4000-8000-000000000002', received: RECEIVED, stage: RECEIVED + 12, status: { code: 200 }, annotations: allow, requestURI: base.requestURI };
    // Each differs from the usual request in one thing.
    const variants: Array<Partial<Request>> = [
      {}, { auditID: 'short' }, { auditID: `${usual.auditID}-longer` }, { auditID: '3f1c2a4e-0000-4000-8000-00000000000"' }, { auditID: '3f1c2a4e-0000-4000-8000-0000000000é2' },
      { auditID: '3f1c2a4e-0000-4000-8000-00000000000\\' }, { received: RECEIVED + 999_992, stage: RECEIVED + 999_993 }, { received: RECEIVED + 1_000_000, stage: RECEIVED + 1_000_000 },
      { stage: RECEIVED + 1_000_000 }, { received: RECEIVED - 7, stage: RECEIVED - 7 }, { status: { code: 404 } }, { status: { status: 'Failure', message: 'm', reason: 'NotFound', code: 404 } },
      { status: undefined }, { annotations: {} }, { annotations: { ...allow, 'authorization.k8s.io/reason': 'other' } }, { annotations: { 'authorization.k8s.io/decision': 'allow' } },
      { level: 'Request' }, { requestURI: '/api/v1/namespaces/default/configmaps/other' },
    ];
    let n = 0;
    const request = (r: Request, buf: Buffer, at: number): number => {
      const f = { ...base, auditID: r.auditID, requestURI: r.requestURI, receivedMicros: r.received, objectRef: { ...base.objectRef }, bodyCache };
      const record = new AuditRecord(config(r.level), f);
      const label = `request ${n++}: ${JSON.stringify(r)}`;
      const first = (via === 'writeTo' ? writtenTo : written)(record, 'RequestReceived', r.received, 1, buf, at);
      assert.equal(first, expected(r.level, 'RequestReceived', f, { stageMicros: r.received }), label);
      for (const [k, v] of Object.entries(r.annotations)) record.annotate(k, v);
      if (r.status?.['message']) record.logResponseJson(Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, ...r.status })));
      if (r.status) record.responded(r.status['code'] as number);
      const second = (via === 'writeTo' ? writtenTo : written)(record, 'ResponseComplete', r.stage, 1, buf, at + Buffer.byteLength(first));
      assert.equal(second, expected(r.level, 'ResponseComplete', f, { status: r.status, annotations: r.annotations, stageMicros: r.stage }), label);
      return at + Buffer.byteLength(first) + Buffer.byteLength(second);
    };
    // The usual request twice (its lines kept), the variant (twice: then it is the one kept), the usual again.
    const buf = Buffer.alloc(1 << 20, 0xff);
    let at = 0;
    for (const v of variants) {
      const variant = { ...usual, ...v };
      for (const r of [usual, usual, variant, variant, usual]) at = request({ ...r, auditID: `${r.auditID.slice(0, -2)}${String(n % 100).padStart(2, '0')}` }, buf, at);
      // The ID as given (the one above keeps its length but not its last characters).
      at = request(variant, buf, at);
      at = request(usual, buf, at);
    }
    // Two requests of the connection at once (pipelined): each line its own.
    const a = new AuditRecord(config('Metadata'), { ...base, auditID: 'aaaaaaaa-0000-4000-8000-000000000001', bodyCache });
    const b = new AuditRecord(config('Metadata'), { ...base, auditID: 'bbbbbbbb-0000-4000-8000-000000000001', receivedMicros: RECEIVED + 3, bodyCache });
    const lines = [written(a, 'RequestReceived', RECEIVED), written(b, 'RequestReceived', RECEIVED + 3)];
    a.responded(200);
    b.responded(201);
    lines.push(written(b, 'ResponseComplete', LATER), written(a, 'ResponseComplete', LATER + 1));
    assert.deepEqual(lines, [
      expected('Metadata', 'RequestReceived', a.facts, { stageMicros: RECEIVED }), expected('Metadata', 'RequestReceived', b.facts, { stageMicros: RECEIVED + 3 }),
      expected('Metadata', 'ResponseComplete', b.facts, { status: { code: 201 }, stageMicros: LATER }), expected('Metadata', 'ResponseComplete', a.facts, { status: { code: 200 }, stageMicros: LATER + 1 }),
    ]);
    // And pipelined requests for different objects: the second changes the connection's cache
    // between the first one's stages, whose last line still has its own fields.
    for (const order of [['c', 'd'], ['d', 'c']] as const) {
      const records = {
        c: new AuditRecord(config('Metadata'), { ...base, auditID: 'cccccccc-0000-4000-8000-000000000001', bodyCache }),
        d: new AuditRecord(config('Metadata'), { ...base, auditID: 'dddddddd-0000-4000-8000-000000000001', requestURI: '/api/v1/namespaces/default/configmaps/y', objectRef: { ...base.objectRef, name: 'y' }, bodyCache }),
      };
      const got = [written(records.c, 'RequestReceived', RECEIVED), written(records.d, 'RequestReceived', RECEIVED)];
      for (const k of order) {
        records[k].responded(200);
        got.push(written(records[k], 'ResponseComplete', LATER));
      }
      assert.deepEqual(got, [
        expected('Metadata', 'RequestReceived', records.c.facts, { stageMicros: RECEIVED }), expected('Metadata', 'RequestReceived', records.d.facts, { stageMicros: RECEIVED }),
        ...order.map((k) => expected('Metadata', 'ResponseComplete', records[k].facts, { status: { code: 200 }, stageMicros: LATER })),
      ], order.join(' then '));
    }
  });

  it('an ID the server made is copied from its bytes, in a line made whole or from the connection\'s last one', () => {
    const bodyCache = new BodyCache();
    const buf = Buffer.alloc(1 << 16, 0xff);
    let at = 0;
    // Made, given, made again (over the template a given ID left), and made without a connection's cache.
    for (const [made, cache] of [[true, true], [true, true], [false, true], [true, true], [true, true], [true, false]] as const) {
      const id = made ? newMadeAuditId() : undefined;
      const f = { ...facts(), auditID: id?.text ?? '3f1c2a4e-0000-4000-8000-00000000000g', madeID: id, bodyCache: cache ? bodyCache : undefined };
      const record = new AuditRecord(config('Metadata'), f);
      const first = written(record, 'RequestReceived', RECEIVED, 1, buf, at);
      assert.equal(first, expected('Metadata', 'RequestReceived', f, { stageMicros: RECEIVED }));
      at += first.length;
      record.responded(200);
      const second = written(record, 'ResponseComplete', LATER, 1, buf, at);
      assert.equal(second, expected('Metadata', 'ResponseComplete', f, { status: { code: 200 }, stageMicros: LATER }));
      at += second.length;
    }
  });

  it('a second stage copies the first line\'s shared bytes only while their buffer has not been reused', () => {
    const f = facts();
    const want = expected('Metadata', 'ResponseComplete', f, { status: { code: 200 }, stageMicros: LATER });
    /** RequestReceived into a buffer at 0 in epoch 1, then ResponseComplete into `other` (or the same buffer after the first line) in `epoch`. */
    const twoLines = (other: Buffer | undefined, epoch: number, overwrite = false) => {
      const record = new AuditRecord(config('Metadata'), f);
      const buf = Buffer.alloc(8192, 0xff);
      const first = written(record, 'RequestReceived', RECEIVED, 1, buf, 0);
      assert.equal(first, expected('Metadata', 'RequestReceived', f, { stageMicros: RECEIVED }));
      record.responded(200);
      if (overwrite) buf.fill(0x41, 0, Buffer.byteLength(first));
      return written(record, 'ResponseComplete', LATER, epoch, other ?? buf, other ? 10 : Buffer.byteLength(first));
    };
    // Same epoch: copied from the first line, into the same buffer and into another one.
    assert.equal(twoLines(undefined, 1), want);
    assert.equal(twoLines(Buffer.alloc(8192), 1), want);
    // The buffer reused (another epoch) and overwritten: encoded again, not copied.
    assert.equal(twoLines(undefined, 2, true), want);
    // A watch: its three lines, the last long after the first.
    const watch = new AuditRecord(config('Metadata'), facts({ verb: 'watch' }));
    const wb = Buffer.alloc(8192);
    let at = 0;
    const lines: string[] = [];
    for (const stage of ['RequestReceived', 'ResponseStarted', 'ResponseComplete'] as const) {
      if (stage === 'ResponseStarted') watch.responded(200);
      const line = written(watch, stage, LATER, 5, wb, at);
      at += Buffer.byteLength(line);
      lines.push(line);
    }
    assert.deepEqual(lines, ['RequestReceived', 'ResponseStarted', 'ResponseComplete'].map((stage) => watch.line(stage as Stage, LATER)));
    // A request body after the first line completes the object reference: the shared part is made again.
    const create = new AuditRecord(config('Metadata'), facts({ verb: 'create', objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' } }));
    const b2 = Buffer.alloc(8192);
    written(create, 'RequestReceived', RECEIVED, 3, b2, 0);
    create.logRequestObject({ metadata: { name: 'made', uid: 'u-1' } });
    assert.equal(JSON.parse(written(create, 'ResponseComplete', LATER, 3, b2, 2000)).objectRef.name, 'made');
  });

  it('in the log queue, lines written in place and lines pushed as text come out whole and in order', async () => {
    const writes: EncodedLines[][] = [];
    const queue = new EncodedLineQueue({ bufferSize: 100_000, batchLines: 300, gatherMs: 1, name: 'log' }, async (chunks) => {
      writes.push(chunks.map((c) => ({ buffer: Buffer.from(c.buffer), ends: [...c.ends] })));
      await new Promise((r) => setImmediate(r));
    });
    const want: string[] = [];
    const emit = (record: AuditRecord, stage: Stage, i: number) => {
      want.push(record.line(stage, LATER));
      if (i % 7 === 0) {
        assert.equal(queue.push(record.line(stage, LATER)), true);
      } else {
        const buffer = queue.reserve(record.lineRoom(stage))!;
        assert.equal(queue.commit(record.writeLine(stage, LATER, buffer, queue.offset, queue.epoch)), true);
      }
    };
    let pending: AuditRecord | undefined;
    const late: AuditRecord[] = [];
    for (let i = 0; i < 6000; i++) {
      const record = new AuditRecord(config('Metadata'), facts({ auditID: `id-${i}`, requestURI: `/api/v1/x/${'y'.repeat(i % 500)}${ODD[i % ODD.length]}` }));
      emit(record, 'RequestReceived', i);
      // Each record's second line comes after the next one's first, the writer running now and
      // then between them; some (long requests) thousands of lines later, their first line's
      // buffer written, reused and overwritten meanwhile.
      if (pending) {
        pending.responded(200);
        emit(pending, 'ResponseComplete', i + 3);
      }
      if (i % 97 === 0) late.push(record);
      else pending = record;
      if (i % 97 === 50 && late.length > 25) {
        const old = late.shift()!;
        old.responded(200);
        emit(old, 'ResponseComplete', i + 1);
      }
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    await queue.close();
    const got = decodedLines(writes);
    assert.equal(got.length, want.length);
    assert.deepEqual(got, want);
  });
  it('through a sink: a line the sink drops is not written, and one past the largest room is pushed as text', () => {
    const bodyCache = new BodyCache();
    const f = { ...facts(), bodyCache };
    const buf = Buffer.alloc(1 << 16, 0xff);
    // The connection's template made first, then a request that could use it.
    for (const id of ['3f1c2a4e-0000-4000-8000-000000000011', '3f1c2a4e-0000-4000-8000-000000000012']) {
      const record = new AuditRecord(config('Metadata'), { ...f, auditID: id });
      assert.equal(writtenTo(record, 'RequestReceived', RECEIVED, 1, buf, 0), expected('Metadata', 'RequestReceived', record.facts, { stageMicros: RECEIVED }));
    }
    const record = new AuditRecord(config('Metadata'), { ...f, auditID: '3f1c2a4e-0000-4000-8000-000000000013' });
    let committed = 0;
    const full: LineSink = { reserve: () => undefined, offset: 0, epoch: 1, commit: () => (committed++, true), push: () => (committed++, true) };
    assert.equal(record.writeTo(full, 'RequestReceived', RECEIVED, 1 << 20), false);
    assert.equal(committed, 0);
    // Past the largest room (100 bytes here), the line is made as text.
    const big = new AuditRecord(config('Metadata'), { ...f, auditID: '3f1c2a4e-0000-4000-8000-000000000014', requestURI: '/api/v1/namespaces/default/configmaps/big' });
    assert.equal(writtenTo(big, 'RequestReceived', RECEIVED, 1, buf, 0, 100), expected('Metadata', 'RequestReceived', big.facts, { stageMicros: RECEIVED }));
  });
});
