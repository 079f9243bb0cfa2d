// The request log (-v 3 and up): one line per request, written once the answer has gone out, with
// the reference's fields; nothing below level 3.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goDuration, klogHeader } from '../../src/server/filters/request-log.js';
import { call, memoryServer, until } from '../helpers.js';

describe('request log', { timeout: 30_000 }, () => {
  it('at -v 3, one line per request once its answer is sent: verb, URI, latency, user agent, user, source, status', async () => {
    const lines: string[] = [];
    const server = await memoryServer({ verbosity: 3, requestLogWriter: (line) => lines.push(line) });
    try {
      await call(server.url, 'GET', '/api/v1/namespaces?limit=5', { headers: { 'User-Agent': 'newcomer/1.0' } });
      await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps/none');
      await call(server.url, 'PATCH', '/api/v1/namespaces/default/configmaps/applied?fieldManager=me', {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' } }, headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      await until('three lines', () => lines.length >= 3, 5000);
      const [list, missing, apply] = lines as [string, string, string];
      assert.match(list, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ httplog\.go\] "HTTP" verb="LIST" URI="\/api\/v1\/namespaces\?limit=5" latency="[\d.]+(µs|ms|s)" userAgent="newcomer\/1.0" user="system:admin" srcIP="127\.0\.0\.1:\d+" resp=200$/);
      assert.match(missing, /verb="GET" URI="\/api\/v1\/namespaces\/default\/configmaps\/none" .* resp=404$/);
      assert.match(apply, /verb="APPLY" .* resp=201$/);
    } finally {
      await server.close();
    }
  });

  it('logs nothing below -v 3', async () => {
    const lines: string[] = [];
    const server = await memoryServer({ verbosity: 2, requestLogWriter: (line) => lines.push(line) });
    try {
      assert.equal((await call(server.url, 'GET', '/api/v1/namespaces')).status, 200);
      assert.deepEqual(lines, []);
    } finally {
      await server.close();
    }
  });

  it('writes klog headers and Go durations', () => {
    const at = new Date(2024, 0, 2, 3, 4, 5, 6).getTime() + 0.789;
    assert.equal(klogHeader('I', at, 'httplog.go'), `I0102 03:04:05.006789 ${String(process.pid).padStart(7)} httplog.go]`);
    assert.equal(goDuration(0.5), '500µs');
    assert.equal(goDuration(12.25), '12.25ms');
    assert.equal(goDuration(1500), '1.5s');
  });
});
