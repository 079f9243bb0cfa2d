// Summarises a V8 .cpuprofile (as `node --cpu-prof` writes, e.g. BENCH_PROF=<dir> npm run bench):
// self and inclusive time per function, optionally only over samples whose stack contains a
// function matching --under (e.g. --under list).
//   node dist/bench/profile.js <file.cpuprofile> [--under <regexp>] [--window <from>,<to>] [--top 30] [--long <ms>]
// --long lists the stretches of at least <ms> without an idle sample (event-loop blocks), each with
// its start (µs, as --window) and heaviest self-time functions.
// --window takes CLOCK_MONOTONIC microseconds (what V8 stamps samples with), as the benchmarks
// print them under BENCH_PROF ("profile window <name>: <from>,<to>").
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function main(): void {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file) throw new Error('usage: profile.js <file.cpuprofile> [--under <regexp>] [--top N]');
  const underAt = args.indexOf('--under');
  const under = underAt >= 0 ? new RegExp(args[underAt + 1]!) : undefined;
  const windowAt = args.indexOf('--window');
  const [from, to] = windowAt >= 0 ? args[windowAt + 1]!.split(',').map(Number) : [-Infinity, Infinity];
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: Node) => {
    const where = n.callFrame.url ? `${n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}` : '';
    return `${n.callFrame.functionName || '(anonymous)'} ${where}`.trim();
  };
  const longAt = args.indexOf('--long');
  const longMs = longAt >= 0 ? Number(args[longAt + 1]) : undefined;
  const self = new Map<string, number>();
  // The current busy stretch: its start and self time per function.
  let stretchStart: number | undefined;
  let stretch = new Map<string, number>();
  const stretches: Array<{ start: number; ms: number; top: string }> = [];
  const closeStretch = (end: number) => {
    if (stretchStart !== undefined && longMs !== undefined && (end - stretchStart) / 1000 >= longMs) {
      const top = [...stretch].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => `${k} ${v.toFixed(0)}ms`).join('; ');
      stretches.push({ start: stretchStart, ms: (end - stretchStart) / 1000, top });
    }
    stretchStart = undefined;
    stretch = new Map();
  };
  const total = new Map<string, number>();
  let all = 0;
  let counted = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000; // ms until the next sample
    all += dt;
    if (at < from! || at > to!) continue;
    const stack: Node[] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    if (under && !stack.some((n) => under.test(n.callFrame.functionName))) continue;
    counted += dt;
    const leaf = label(stack[0]!);
    if (leaf === '(idle)') closeStretch(at);
    else {
      stretchStart ??= at;
      stretch.set(leaf, (stretch.get(leaf) ?? 0) + dt);
    }
    self.set(leaf, (self.get(leaf) ?? 0) + dt);
    for (const l of new Set(stack.map(label))) total.set(l, (total.get(l) ?? 0) + dt);
  }
  const show = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${v.toFixed(1).padStart(9)} ms ${((v / counted) * 100).toFixed(1).padStart(5)}%  ${k}`);
  };
  console.log(`profile ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms, sampled ${all.toFixed(0)} ms, ${counted.toFixed(0)} ms counted${under ? ` (under /${under.source}/)` : ''}`);
  closeStretch(at);
  if (longMs !== undefined) {
    console.log(`\n${stretches.length} stretches of >= ${longMs} ms without idle:`);
    for (const st of stretches.sort((a, b) => b.ms - a.ms).slice(0, top)) console.log(`${st.ms.toFixed(1).padStart(8)} ms at ${st.start}: ${st.top}`);
    return;
  }
  show('self time', self);
  show('inclusive time', total);
}

main();
