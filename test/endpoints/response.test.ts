// The headers every answer to a request carries (Audit-Id, the X-Kubernetes-PF-* UIDs), however
// the answer's head is written: given to writeHead as an object, a list or pairs, with a reason
// phrase, implicitly by end(), after other headers were set with setHeader — and a header of the
// same name given when the head is written replaces the request's own, never doubles it. Prepared
// headers (checked once, their lines written as they are) behave the same, and one whose value Node
// would refuse is refused as Node refuses it, never written.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addAnswerHeader, addPreparedAnswerHeader, AnswerResponse, PreparedHeader } from '../../src/endpoints/response.js';

type Writer = (res: ServerResponse) => void;

const WRITERS: Record<string, Writer> = {
  object: (res) => res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok'),
  list: (res) => res.writeHead(201, ['Content-Type', 'text/plain', 'Warning', '299 - "a"']).end('ok'),
  pairs: (res) => res.writeHead(202, [['Content-Type', 'text/plain']] as unknown as string[]).end('ok'),
  reason: (res) => res.writeHead(203, 'Fine', { 'Content-Type': 'text/plain' }).end('ok'),
  bare: (res) => res.writeHead(204).end(),
  implicit: (res) => {
    res.statusCode = 404;
    res.end('gone');
  },
  'set first': (res) => {
    res.setHeader('Vary', 'Accept');
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  },
  replaced: (res) => res.writeHead(200, { 'audit-id': 'theirs', 'Content-Type': 'text/plain' }).end('ok'),
  'prepared replaced': (res) => res.writeHead(200, ['X-Kubernetes-PF-PriorityLevel-UID', 'theirs', 'Content-Type', 'text/plain']).end('ok'),
  // Set before the head, as any own header: the request's own value is the one written, once.
  'prepared set first': (res) => {
    res.setHeader('x-kubernetes-pf-prioritylevel-uid', 'theirs');
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  },
};
const LEVEL = new PreparedHeader('X-Kubernetes-PF-PriorityLevel-UID', 'pl-uid');

/** The raw header lines of an answer, names lowercased, in order. */
function rawHeaders(port: number, path: string): Promise<{ status: number; headers: [string, string][] }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => {
        const headers: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode ?? 0, headers });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('answer headers', { timeout: 10_000 }, () => {
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer({ ServerResponse: AnswerResponse }, (req, res) => {
      addAnswerHeader(res, 'Audit-Id', 'ours');
      addAnswerHeader(res, 'X-Kubernetes-PF-FlowSchema-UID', 'fs-uid');
      addPreparedAnswerHeader(res, LEVEL);
      WRITERS[decodeURIComponent(req.url!.slice(1))]!(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  for (const name of Object.keys(WRITERS)) {
    it(`are on an answer written ${name === 'replaced' ? 'with an Audit-Id of its own' : `by ${name}`}`, async () => {
      const { status, headers } = await rawHeaders(port, `/${encodeURIComponent(name)}`);
      assert.ok(status >= 200, `${status}`);
      const values = (n: string) => headers.filter(([k]) => k === n).map(([, v]) => v);
      assert.deepEqual(values('audit-id'), [name === 'replaced' ? 'theirs' : 'ours']);
      assert.deepEqual(values('x-kubernetes-pf-flowschema-uid'), ['fs-uid']);
      assert.deepEqual(values('x-kubernetes-pf-prioritylevel-uid'), [name === 'prepared replaced' ? 'theirs' : 'pl-uid']);
      if (name === 'list') assert.deepEqual(values('warning'), ['299 - "a"']);
      if (name === 'set first') assert.deepEqual(values('vary'), ['Accept']);
      if (name === 'reason') assert.deepEqual(values('content-type'), ['text/plain']);
    });
  }

  it('are set as ordinary headers on any other response (HTTP/2\'s, a test\'s)', () => {
    const set: string[][] = [];
    const plain = { setHeader: (name: string, value: string) => set.push([name, value]) };
    addAnswerHeader(plain as unknown as ServerResponse, 'Audit-Id', 'x');
    addPreparedAnswerHeader(plain as unknown as ServerResponse, LEVEL);
    assert.deepEqual(set, [['Audit-Id', 'x'], ['X-Kubernetes-PF-PriorityLevel-UID', 'pl-uid']]);
  });

  it('a prepared header Node would refuse is refused as Node refuses it, not written', () => {
    const bad = new PreparedHeader('X-Kubernetes-PF-FlowSchema-UID', 'a\r\nInjected: yes');
    assert.equal(bad.line, undefined);
    assert.equal(new PreparedHeader('Bad Name', 'v').line, undefined);
    const res = new AnswerResponse({ method: 'GET', httpVersionMajor: 1, httpVersionMinor: 1, headers: {} } as IncomingMessage);
    addPreparedAnswerHeader(res, bad);
    assert.throws(() => res.writeHead(200), { code: 'ERR_INVALID_CHAR' });
  });
});
