// Nesting and aliases bounded before any value is built (issue 14 item 3): the reference's
// decoders refuse more than 10,000 levels (Go's encoding/json: "invalid character '[' exceeded
// max depth"; go-yaml: "yaml: exceeded max depth of 10000"), capstan's engines take at most
// 1,000, and YAML aliases are refused as go-yaml refuses them (a cycle; excessive aliasing).
// End to end, a 3 MiB hostile body is a 4xx Status, costs little memory and time, stores nothing.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { jsonDepthError } from '../../src/encoding/depth.js';
import { parseYaml, YamlRefused } from '../../src/encoding/yaml-decode.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, mustOk } from '../helpers.js';

const nested = (n: number, open = '[', close = ']', inner = '') => open.repeat(n) + inner + close.repeat(n);
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** go-yaml's refusal of `text`, or undefined when it parses. */
function yamlRefusal(text: string): string | undefined {
  try {
    parseYaml(text);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof YamlRefused, String(err));
    return err.message;
  }
}

describe('JSON nesting, read from the text', { timeout: 10_000 }, () => {
  it('is Go\'s "exceeded max depth" past 10,000 levels, naming the bracket', () => {
    assert.equal(jsonDepthError(nested(10_001)), "invalid character '[' exceeded max depth");
    assert.equal(jsonDepthError(`{"k":${nested(10_000, '{"a":', '}', '1')}}`), "invalid character '{' exceeded max depth");
  });

  it('is the engines\' bound from 1,001 to 10,000 levels, and nothing up to 1,000', () => {
    assert.equal(jsonDepthError(nested(10_000)), 'nesting depth exceeds the limit of 1000');
    assert.equal(jsonDepthError(deepObject(1001)), 'nesting depth exceeds the limit of 1000');
    assert.equal(jsonDepthError(deepObject(1000)), undefined);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    assert.equal(jsonDepthError(JSON.stringify({ a: '['.repeat(20_000), b: '\\"[[[', c: ['"{{{'] })), undefined);
  });
});

describe('YAML nesting and aliases, as go-yaml bounds them', { timeout: 10_000 }, () => {
  it('refuses more than 10,000 levels in go-yaml\'s words, flow or block, with the line past the first', () => {
    assert.equal(yamlRefusal(`a: ${nested(10_001)}`), 'yaml: exceeded max depth of 10000');
    assert.equal(yamlRefusal(`a: 1\nb:\n${'- '.repeat(10_001)}x\n`), 'yaml: line 3: exceeded max depth of 10000');
    // JSON bodies (read by JSON.parse) say the same.
    assert.equal(yamlRefusal(`{"a":1,\n"b":${nested(10_001)}}`), 'yaml: line 2: exceeded max depth of 10000');
  });

  it('refuses 501 to 10,000 levels (the YAML library recurses), JSON too, and reads up to 500', () => {
    assert.equal(yamlRefusal(`a: ${nested(501)}`), 'nesting depth exceeds the limit of 500');
    assert.equal(yamlRefusal(`${'- '.repeat(5000)}x\n`), 'nesting depth exceeds the limit of 500');
    assert.doesNotThrow(() => parseYaml(`${'- '.repeat(500)}x\n`));
    assert.doesNotThrow(() => parseYaml(`a: ${nested(499)}`));
    assert.equal(yamlRefusal(`{"a": ${nested(500)}}`), 'nesting depth exceeds the limit of 500');
    assert.doesNotThrow(() => parseYaml(nested(500)));
  });

  it('refuses an alias inside the node it names, as go-yaml ("value contains itself")', () => {
    assert.equal(yamlRefusal('a: &a [*a]\n'), "yaml: anchor 'a' value contains itself");
    assert.equal(yamlRefusal('a: &x\n  b: &y\n    c: *x\n'), "yaml: anchor 'x' value contains itself");
  });

  it('refuses exponential expansion ("billion laughs") as excessive aliasing, but not plain reuse', () => {
    let laughs = 'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (let i = 1; i < 10; i++) laughs += `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
    assert.equal(yamlRefusal(laughs), 'yaml: document contains excessive aliasing');
    // go-yaml counts decodes: 5,000 uses of a one-node anchor stay under its ratio.
    const reuse = parseYaml(`x: &x 1\nys: [${Array(5000).fill('*x').join(', ')}]\n`) as { ys: number[] };
    assert.equal(reuse.ys.length, 5000);
    assert.ok(reuse.ys.every((v) => v === 1));
  });

  it('refuses nesting that aliases build past the bound', () => {
    let text = `l0: &l0 ${nested(300, '[', ']', 'x')}\n`;
    text += `l1: &l1 ${nested(300, '[', ']', '*l0')}\n`;
    assert.equal(yamlRefusal(text), 'nesting depth exceeds the limit of 500');
  });

  it('still merges keys (<<) and keeps timestamps as written', () => {
    assert.deepEqual(parseYaml('base: &b {p: 1, q: 2}\nobj:\n  <<: *b\n  q: 3\nt: 2024-01-01T00:00:00Z\n'), { base: { p: 1, q: 2 }, obj: { p: 1, q: 3 }, t: '2024-01-01T00:00:00Z' });
  });

  it('reads JSON as YAML 1.1 would (a quoted "<<" is no merge key)', () => {
    const text = '{"<<": {"x": 1}, "a": [1, 2.5, true, null, "2024-01-01"], "a": "last"}';
    assert.deepEqual(parseYaml(text), JSON.parse(text));
  });
});

/** Peak memory growth (MB) and time (ms) of `run`, measured on this process. */
async function cost<T>(run: () => Promise<T>): Promise<{ result: T; mb: number; ms: number }> {
  const status = () => readFileSync('/proc/self/status', 'utf8');
  const kb = (text: string, key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)![1]);
  writeFileSync('/proc/self/clear_refs', '5');
  const base = kb(status(), 'VmRSS');
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  return { result, mb: (kb(status(), 'VmHWM') - base) / 1024, ms };
}

describe('hostile bodies end to end: a 4xx Status, bounded cost, nothing stored', { timeout: 120_000 }, () => {
  let server: RunningServer;
  const CM = '/api/v1/namespaces/default/configmaps';
  const cm = (name: string, data: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":${data}}`;
  before(async () => {
    server = await memoryServer();
    await mustOk(call(server.url, 'POST', CM, { body: { metadata: { name: 'base' }, data: { a: '1' } } }), 201);
    // Warm every path (compilation is not what is measured).
    for (let i = 0; i < 3; i++) {
      await call(server.url, 'POST', CM, { body: cm(`warm${i}`, '{"a":"1"}') });
      await call(server.url, 'POST', CM, { body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warmy${i}\n`, headers: { 'Content-Type': 'application/yaml' } });
      await call(server.url, 'PATCH', `${CM}/base`, { body: '{"data":{"w":"1"}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
      await call(server.url, 'PATCH', `${CM}/warmapply?fieldManager=m`, { body: cm('warmapply', '{"a":"1"}'), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    }
  });
  after(() => server.close());

  const J = 'application/json';
  const Y = 'application/yaml';
  const A = 'application/apply-patch+yaml';
  const unrecognized = (why: string) => new RegExp(`^the object provided is unrecognized \\(must be of type ConfigMap\\): ${why.replace(/[()[\]'.]/g, '\\$&')}`);
  const MiB3 = 3 * 1024 * 1024 - 200;
  const cases: Array<{ name: string; method: string; path: string; type: string; body: () => string; message: RegExp }> = [
    { name: 'POST JSON, 1.5M levels', method: 'POST', path: CM, type: J, body: () => cm('h1', nested(Math.floor(MiB3 / 2))), message: unrecognized("couldn't get version/kind; json parse error: invalid character '[' exceeded max depth") },
    { name: 'PUT JSON, 500k levels of objects', method: 'PUT', path: `${CM}/base`, type: J, body: () => cm('base', deepObject(Math.floor(MiB3 / 6))), message: unrecognized("couldn't get version/kind; json parse error: invalid character '{' exceeded max depth") },
    { name: 'POST YAML, flow, 1.5M levels', method: 'POST', path: CM, type: Y, body: () => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h2\ndata: ${nested(Math.floor(MiB3 / 2))}\n`, message: unrecognized('yaml: line 5: exceeded max depth of 10000') },
    { name: 'POST YAML, block, 1.5M levels', method: 'POST', path: CM, type: Y, body: () => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h3\ndata:\n${'- '.repeat(Math.floor(MiB3 / 2))}x\n`, message: unrecognized('yaml: line 6: exceeded max depth of 10000') },
    { name: 'POST YAML, alias cycle', method: 'POST', path: CM, type: Y, body: () => 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h4\ndata: &a [*a]\n', message: unrecognized("yaml: anchor 'a' value contains itself") },
    { name: 'apply JSON, 1.5M levels', method: 'PATCH', path: `${CM}/h5?fieldManager=m`, type: A, body: () => cm('h5', nested(Math.floor(MiB3 / 2))), message: /^error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000$/ },
    { name: 'apply YAML, billion laughs', method: 'PATCH', path: `${CM}/h6?fieldManager=m`, type: A, body: () => {
      let s = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h6\nx:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
      for (let i = 1; i < 10; i++) s += `  a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
      return s;
    }, message: /^error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing$/ },
    { name: 'merge patch, 500k levels', method: 'PATCH', path: `${CM}/base`, type: 'application/merge-patch+json', body: () => deepObject(Math.floor(MiB3 / 6)), message: /^error decoding patch: invalid character '\{' exceeded max depth$/ },
    { name: 'merge patch, 10,000 levels (within Go\'s bound: was a 500 stack overflow)', method: 'PATCH', path: `${CM}/base`, type: 'application/merge-patch+json', body: () => deepObject(10_000), message: /^error decoding patch: nesting depth exceeds the limit of 1000$/ },
    { name: 'strategic merge patch, 10,000 levels (was a 500)', method: 'PATCH', path: `${CM}/base`, type: 'application/strategic-merge-patch+json', body: () => deepObject(10_000), message: /^error decoding patch: nesting depth exceeds the limit of 1000$/ },
    { name: 'JSON patch value, 1.5M levels', method: 'PATCH', path: `${CM}/base`, type: 'application/json-patch+json', body: () => `[{"op":"add","path":"/x","value":${nested(Math.floor(MiB3 / 2) - 20)}}]`, message: /^error decoding patch: invalid character '\[' exceeded max depth$/ },
    { name: 'DELETE options, 1.5M levels', method: 'DELETE', path: `${CM}/base`, type: J, body: () => nested(Math.floor(MiB3 / 2)), message: /^error decoding patch: invalid character '\[' exceeded max depth$/ },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const body = Buffer.from(c.body());
      assert.ok(body.length <= 3 * 1024 * 1024, `${body.length} bytes`);
      const before = await call(server.url, 'GET', `${CM}/base`);
      const { result: r, mb, ms } = await cost(() => call(server.url, c.method, c.path, { body, headers: { 'Content-Type': c.type } }));
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.reason, 'BadRequest');
      assert.match(r.json.message, c.message);
      // Bounds with room for a loaded machine: the figures themselves are a few MB and tens of ms.
      assert.ok(mb <= 50, `${mb.toFixed(1)} MB`);
      assert.ok(ms <= 1500, `${ms.toFixed(0)} ms`);
      const afterwards = await call(server.url, 'GET', `${CM}/base`);
      assert.equal(afterwards.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
      assert.equal((await call(server.url, 'GET', `${CM}/h1`)).status, 404);
    });
  }
});

describe('objects deeper than the YAML writer goes, asked for in YAML', { timeout: 30_000 }, () => {
  let server: RunningServer;
  const CR = '/apis/apps/v1/namespaces/default/controllerrevisions';
  // A ControllerRevision's data is any JSON: 700 levels are within the engines' 1,000, past YAML's 500.
  const deep = (name: string, levels: number) => `{"metadata":{"name":"${name}"},"revision":1,"data":${nested(levels - 1, '{"a":', '}', '{}')}}`;
  before(async () => {
    server = await memoryServer();
  });
  after(() => server.close());

  it('is created (JSON) and answered in JSON when YAML was asked for: the write stands, the answer says what it is', async () => {
    const created = await call(server.url, 'POST', CR, { body: deep('deep', 700), headers: { Accept: 'application/yaml' } });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    assert.equal(created.headers['content-type'], 'application/json');
    assert.equal(created.json.metadata.name, 'deep');
    for (const path of [`${CR}/deep`, CR]) {
      const r = await call(server.url, 'GET', path, { headers: { Accept: 'application/yaml' } });
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.equal(r.headers['content-type'], 'application/json', path);
      const object = path === CR ? r.json.items[0] : r.json;
      assert.equal(JSON.stringify(object.data), nested(699, '{"a":', '}', '{}'));
    }
  });

  it('is written as YAML up to 500 levels', async () => {
    await mustOk(call(server.url, 'POST', CR, { body: deep('shallower', 400) }), 201);
    const r = await call(server.url, 'GET', `${CR}/shallower`, { headers: { Accept: 'application/yaml' } });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.headers['content-type'], 'application/yaml');
    assert.deepEqual((parseYaml(r.text) as { data: unknown }).data, JSON.parse(nested(399, '{"a":', '}', '{}')));
  });

  it('is refused in YAML past 500 levels (the YAML library recurses), with the engines\' words', async () => {
    const r = await call(server.url, 'POST', CR, { body: `apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: y\nrevision: 1\ndata: ${nested(600)}\n`, headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.match(r.json.message, /nesting depth exceeds the limit of 500/);
    assert.equal((await call(server.url, 'GET', `${CR}/y`)).status, 404);
  });
});
