// A capstan server for the API Priority and Fairness benchmark: `node dist/bench/apf-server.js
// <data-dir> on|off` starts the server as the command would (SQLite store, plain HTTP on
// 127.0.0.1, metrics on), with API Priority and Fairness or the max-in-flight limits — the one
// thing the two servers differ in. A FlowSchema (made in both) sends the benchmark's client (the
// loopback administrator, otherwise exempt) to the global-default priority level when APF is on,
// so that its GETs take the Limited path (classification, a seat of the level's share, the metrics).
import { startServer } from '../src/server/server.js';

const [dataDir, mode] = process.argv.slice(2);
if (!dataDir || (mode !== 'on' && mode !== 'off')) throw new Error('usage: apf-server.js <data-dir> on|off');
const server = await startServer({ dataDir, insecure: true, port: 0, bindAddress: '127.0.0.1', enablePriorityAndFairness: mode === 'on' });
// Both servers take the same requests before the benchmark's (the FlowSchema made, namespaces
// listed, the FlowSchema read), so that neither has served kinds of request the other has not:
// V8 optimizes the serving code for the kinds it has seen (before, only the APF server had served
// lists and FlowSchemas).
// Matching precedence 1 like `exempt`, and ahead of it by name.
const created = await fetch(`${server.url}/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({
    metadata: { name: 'bench-admin' },
    spec: {
      priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 1, distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
    },
  }),
});
if (created.status !== 201) throw new Error(`creating the FlowSchema answered ${created.status}`);
const uid = ((await created.json()) as { metadata: { uid: string } }).metadata.uid;
// Three rounds in both; with APF on, more until the configuration in force has the FlowSchema.
for (let round = 0; ; round++) {
  const r = await fetch(`${server.url}/api/v1/namespaces`);
  await r.arrayBuffer();
  await (await fetch(`${server.url}/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas/bench-admin`)).arrayBuffer();
  if (round >= 2 && (mode === 'off' || r.headers.get('x-kubernetes-pf-flowschema-uid') === uid)) break;
  await new Promise((r) => setTimeout(r, 50));
}
process.stdout.write(`serving on ${server.url} (apf ${mode})\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
