// What kube-controller-manager made in the reference, made by capstan's controllers: the reference's
// manifests (test/fixtures/reference/create) are created in the order the recorder created them,
// then every Table the recorder took of a kind that controllers act on is compared with ours —
// rows (cells) and each row's object (names, labels, annotations, owners, managedFields), with the
// fixtures' placeholders (README: <uid>, <time>, <rv>, <suffix>, <age>, …) standing for what
// differs from run to run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, sleep } from '../helpers.js';

const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

/** The recorder's creates, in its order (the node and the webhook configurations came and went before). */
const CREATES = [
  'core-v1-pods', 'core-v1-services-clusterip', 'core-v1-services-nodeport', 'core-v1-services-headless', 'core-v1-services-externalname',
  'core-v1-configmaps', 'core-v1-secrets-opaque', 'core-v1-secrets-dockerconfigjson', 'core-v1-secrets-tls', 'core-v1-serviceaccounts',
  'core-v1-secrets-service-account-token', 'core-v1-endpoints', 'core-v1-limitranges', 'core-v1-resourcequotas', 'core-v1-persistentvolumes',
  'core-v1-persistentvolumeclaims', 'core-v1-replicationcontrollers', 'core-v1-podtemplates', 'core-v1-events', 'events.k8s.io-v1-events',
  'core-v1-namespaces', 'apps-v1-deployments', 'apps-v1-replicasets', 'apps-v1-statefulsets', 'apps-v1-daemonsets', 'apps-v1-controllerrevisions',
  'batch-v1-jobs', 'batch-v1-cronjobs', 'autoscaling-v1-horizontalpodautoscalers', 'autoscaling-v2-horizontalpodautoscalers',
  'autoscaling-v2beta2-horizontalpodautoscalers', 'policy-v1-poddisruptionbudgets', 'discovery.k8s.io-v1-endpointslices',
];

/** The Tables that show what controllers made (or wrote into status). */
const TABLES = [
  'apps-v1-deployments', 'apps-v1-replicasets', 'core-v1-pods', 'core-v1-replicationcontrollers', 'apps-v1-statefulsets', 'apps-v1-daemonsets',
  'apps-v1-controllerrevisions', 'batch-v1-jobs', 'batch-v1-cronjobs', 'core-v1-endpoints', 'discovery.k8s.io-v1-endpointslices',
  'core-v1-persistentvolumes', 'core-v1-persistentvolumeclaims', 'core-v1-events', 'autoscaling-v2-horizontalpodautoscalers',
];

/**
 * Tables that still differ, and why. Each must still differ: once it matches, its test fails so
 * that the entry is removed.
 */
const PENDING: Readonly<Record<string, string>> = {
  'core-v1-events': 'the reference\'s binder met the claim before it had marked the new volume Available (FailedBinding, bound at a resync): a race of that run; capstan binds at once',
};

/**
 * How long the reference's controllers had: the recorder waited 8 s after its last create. (Not
 * longer: by 15 s the HPA controller has looked at its objects, which it had not when recorded.)
 */
const SETTLE_MS = 9_000;

const PLACEHOLDER: Readonly<Record<string, string>> = {
  '<suffix>': '[0-9a-z]{5}|[0-9a-f]{12,}',
  '<age>': '\\d+(ms|s|m|h|d|y)(\\d+(s|m|h))?|<unknown>',
  '<uid>': '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  '<time>': '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z',
  '<rv>': '\\d+',
  '<cluster-ip>': '10\\.96\\.\\d+\\.\\d+',
  '<node-port>': '3\\d{4}',
  '<redacted>': '[\\s\\S]*',
};

/** The fixture's string as a pattern: its placeholders stand for what they replace. */
function patternOf(expected: string): RegExp | undefined {
  if (!/<(suffix|age|uid|time|rv|cluster-ip|node-port|redacted)>/.test(expected)) return undefined;
  const parts = expected.split(/(<(?:suffix|age|uid|time|rv|cluster-ip|node-port|redacted)>)/);
  return new RegExp(`^${parts.map((p) => PLACEHOLDER[p] !== undefined ? `(?:${PLACEHOLDER[p]})` : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('')}$`);
}

/**
 * Ours, with each value the fixture holds as a placeholder (and ours fits) replaced by the
 * fixture's, so that a deepEqual shows only real differences. Keys with placeholders (fieldsV1's
 * `k:{"uid":…}`) are matched the same way.
 */
function alike(actual: unknown, expected: unknown): unknown {
  if (typeof actual === 'string' && typeof expected === 'string') return patternOf(expected)?.test(actual) ? expected : actual;
  if (typeof actual === 'number' && typeof expected === 'string') return patternOf(expected)?.test(String(actual)) ? expected : actual;
  if (Array.isArray(actual) && Array.isArray(expected)) return actual.map((v, i) => alike(v, expected[i]));
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object' && !Array.isArray(actual)) {
    const exp = expected as Record<string, unknown>;
    const keyOf = (k: string) => (k in exp ? k : Object.keys(exp).find((e) => patternOf(e)?.test(k)) ?? k);
    return Object.fromEntries(Object.entries(actual).map(([k, v]) => {
      const key = keyOf(k);
      return [key, alike(v, exp[key])];
    }));
  }
  return actual;
}

interface TableRow {
  cells: unknown[];
  object?: { metadata?: { name?: string } };
}

function rowsOf(table: unknown): TableRow[] {
  return ((table as { rows?: TableRow[] | null }).rows ?? []);
}

/**
 * Our rows in the order of the fixture's rows they stand for (by name, placeholders matching):
 * names with a random part (generateName, event times) sort differently from run to run.
 */
function inFixtureOrder(actual: unknown, expected: unknown): unknown {
  const ours = [...rowsOf(actual)];
  const ordered: TableRow[] = [];
  for (const row of rowsOf(expected)) {
    const name = String(row.object?.metadata?.name);
    const pattern = patternOf(name);
    const i = ours.findIndex((r) => (pattern ? pattern.test(String(r.object?.metadata?.name)) : r.object?.metadata?.name === name));
    if (i >= 0) ordered.push(...ours.splice(i, 1));
  }
  return { ...(actual as object), rows: [...ordered, ...ours] };
}

describe('what the controllers make, against the reference\'s tables', { timeout: 90_000 }, () => {
  let server: RunningServer;
  before(async () => {
    server = await memoryServer();
    for (const ns of ['ref-create', 'ref-create-quota']) assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
    for (const name of CREATES) {
      const c = fixture(`create/${name}`);
      // As the recorder sent them: its User-Agent names the field manager (`recorder`).
      const r = await call(server.url, 'POST', c.request.path, { body: c.request.body, headers: { 'User-Agent': 'recorder/1.0 (record.mjs; node)' } });
      assert.equal(r.status, 201, `${name}: ${r.text}`);
    }
  });
  after(() => server.close());

  const ours = async (table: string) => {
    const t = fixture(`table/${table}`);
    const reply = await call(server.url, 'GET', t.request.path, { headers: { Accept: TABLE } });
    assert.equal(reply.status, 200, reply.text);
    return { expected: t.response.body, actual: alike(inFixtureOrder(placeholders(reply.json), t.response.body), t.response.body) };
  };

  // Tables are taken until all match or the time is up; each test compares the last take.
  const last = new Map<string, { expected: unknown; actual: unknown }>();
  before(async () => {
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      for (const table of TABLES) last.set(table, await ours(table));
      const settled = [...last.entries()].every(([table, t]) => table in PENDING || isDeepEqual(comparable(t.actual), comparable(t.expected)));
      if (settled || Date.now() > deadline) break;
      await sleep(500);
    }
  });

  for (const table of TABLES) {
    it(`matches the reference: ${table}`, () => {
      const { expected, actual } = last.get(table)!;
      const pending = PENDING[table];
      if (pending !== undefined) {
        assert.equal(isDeepEqual(comparable(actual), comparable(expected)), false, `${table} now matches: remove it from PENDING (${pending})`);
        return;
      }
      assert.deepEqual(comparable(actual).cells, comparable(expected).cells, 'rows');
      assert.deepEqual(comparable(actual).objects, comparable(expected).objects, 'row objects');
    });
  }
});

/**
 * managedFields entries in one order: the reference orders entries of one operation by the second
 * they were written, then by manager — and the fixture's `<time>` hides those seconds (whether a
 * controller wrote in the same second as the recorder is the timing of that run).
 */
function entriesInAnyOrder(object: unknown): unknown {
  const meta = (object as { metadata?: { managedFields?: Array<Record<string, unknown>> } } | undefined)?.metadata;
  if (!meta?.managedFields) return object;
  const key = (e: Record<string, unknown>) => `${String(e['operation'])} ${String(e['manager'])} ${String(e['subresource'] ?? '')}`;
  return { ...(object as object), metadata: { ...meta, managedFields: [...meta.managedFields].sort((a, b) => key(a).localeCompare(key(b))) } };
}

/** A Table as compared: each row's name and cells, and each row's object. */
function comparable(table: unknown): { cells: unknown[]; objects: unknown[] } {
  const rows = rowsOf(table);
  return { cells: rows.map((r) => [r.object?.metadata?.name, ...r.cells]), objects: rows.map((r) => entriesInAnyOrder(r.object)) };
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}
