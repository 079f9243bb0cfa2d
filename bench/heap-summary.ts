// Summarises a V8 heap snapshot (BENCH_HEAP_SNAPSHOT=<dir> node dist/bench/run.js memory writes
// them): count and self size per constructor / node type, native backing stores included, largest
// first; with --retainers <name>, what holds the objects of that name (by the retainer's name and
// edge), to see which structure keeps them.
//   node dist/bench/heap-summary.js <file.heapsnapshot> [--top 30] [--retainers Buffer]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file) throw new Error('usage: heap-summary.js <file.heapsnapshot> [--top N] [--retainers NAME]');
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
  const retAt = args.indexOf('--retainers');
  const retainersOf = retAt >= 0 ? args[retAt + 1] : undefined;
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const fType = meta.node_fields.indexOf('type');
  const fName = meta.node_fields.indexOf('name');
  const fSize = meta.node_fields.indexOf('self_size');
  const fEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = snap;
  const count = nodes.length / nf;
  const label = (n: number) => {
    const type = nodeTypes[nodes[n * nf + fType]!]!;
    const name = strings[nodes[n * nf + fName]!]!;
    if (type === 'object' || type === 'native' || type === 'closure') return `${name} (${type})`;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return `(${type})`;
    return `(${type}) ${name.length > 40 ? `${name.slice(0, 40)}…` : name}`;
  };
  const groups = new Map<string, { count: number; size: number }>();
  let total = 0;
  for (let n = 0; n < count; n++) {
    const size = nodes[n * nf + fSize]!;
    total += size;
    const l = label(n);
    const g = groups.get(l) ?? { count: 0, size: 0 };
    g.count++;
    g.size += size;
    groups.set(l, g);
  }
  console.log(`${count} nodes, ${(total / 1024 / 1024).toFixed(1)} MiB self size in all\n`);
  for (const [l, g] of [...groups].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
    console.log(`${(g.size / 1024 / 1024).toFixed(1).padStart(8)} MiB ${String(g.count).padStart(9)}  ${l}`);
  }
  if (!retainersOf) return;
  // Who points at nodes named `retainersOf`: (retainer label, edge name) → count.
  const holders = new Map<string, number>();
  let edge = 0;
  for (let n = 0; n < count; n++) {
    const edgeCount = nodes[n * nf + fEdges]!;
    for (let k = 0; k < edgeCount; k++, edge++) {
      const to = edges[edge * ef + eTo]! / nf;
      if (strings[nodes[to * nf + fName]!] !== retainersOf) continue;
      const type = edgeTypes[edges[edge * ef + eType]!]!;
      if (type === 'weak') continue;
      const nameOrIndex = edges[edge * ef + eName]!;
      const edgeName = type === 'element' || type === 'hidden' ? `[${type}]` : strings[nameOrIndex];
      const key = `${label(n)} .${edgeName}`;
      holders.set(key, (holders.get(key) ?? 0) + 1);
    }
  }
  console.log(`\nretainers of ${retainersOf}:`);
  for (const [k, v] of [...holders].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(v).padStart(9)}  ${k}`);
}

main();
