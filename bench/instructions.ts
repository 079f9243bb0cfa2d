// What a feature (metrics, APF, audit) costs a GET counted in instructions, not time: the on and
// off servers of its on/off bench (on-off.ts) run under valgrind's callgrind, which counts every
// instruction the server's main thread executes. The count does not move with the machine's load,
// which on this shared VM moves CPU time per request by more than the costs to tell (see
// on-off.ts). It does move with what V8 did in that process: a function left in baseline code or
// deoptimized moves thousands of instructions, and two runs of one build have differed by up to 8
// points (APF: 4.3% and 12.5%). A difference that repeats, or the functions' own counts, say more.
// Not a target: the targets are the time figures; this says how much of a time cost is the
// feature's own work, and how much is the machine (caches, wake-ups, other tenants).
//
// Each server serves WARM GETs (its code optimized; under callgrind a GET takes ~50× as long),
// then its counters are zeroed and it serves MEASURED more, whose count is read. Garbage
// collection and optimizing compilation fall in that window by chance (a major collection alone
// moves a run by ~5%), so they are counted apart, by the names of V8's functions, and the figure
// is given both with and without them. `node dist/bench/run.js instructions`; not in the default
// run (about 2 minutes a feature). BENCH_INSTRUCTIONS_FEATURES=metrics,audit picks features.
import { execFileSync, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apfServers } from './apf.js';
import { auditServers } from './audit.js';
import { figure, here, startNode } from './common.js';
import { metricsServers } from './metrics.js';
import { createBenchObject, type Mode, type OnOffServers } from './on-off.js';

const WARM = Number(process.env['BENCH_INSTRUCTIONS_WARM'] ?? 20_000);
const MEASURED = Number(process.env['BENCH_INSTRUCTIONS_MEASURED'] ?? 10_000);
const CONNECTIONS = 8;

/** V8's collector and optimizing compiler, by the names callgrind gives their C++ functions. */
const COLLECTOR_OR_COMPILER = /v8::internal::(compiler::|maglev::|.*(Scaveng|Marking|MarkCompact|Sweep|Evacuat|RememberedSet|SlotSet|ObjectCache|GCTracer|Heap::|HeapVisitor|Visitor<|BodyDescriptor|ConcurrentMarking|Compact|Pipeline|OptimizedCompil))/;

interface Count {
  /** Instructions of the main thread per GET. */
  all: number;
  /** Of them, in the collector and the compiler. */
  collectorAndCompiler: number;
}

function hasValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('which', ['callgrind_control'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Self instructions of a callgrind file: all, and those of functions named like the collector's or compiler's. */
function selfInstructions(file: string): { all: number; matched: number } {
  const names = new Map<string, string>();
  let fn = '';
  let afterCall = false;
  let all = 0;
  let matched = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('fn=') || line.startsWith('cfn=')) {
      // Names are compressed: "(id) name" the first time, "(id)" after.
      const m = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
      const name = m ? (m[2] !== undefined ? (names.set(m[1]!, m[2]), m[2]) : names.get(m[1]!) ?? '') : line.slice(line.indexOf('=') + 1);
      if (line.startsWith('fn=')) fn = name;
      continue;
    }
    if (line.startsWith('calls=')) {
      afterCall = true;
      continue;
    }
    const cost = /^(?:[+-]?\d+|\*|0x[0-9a-f]+)\s+(\d+)$/.exec(line);
    if (!cost) continue;
    // The line after calls= is the call's inclusive cost, counted where the callee's own lines are.
    if (afterCall) {
      afterCall = false;
      continue;
    }
    const n = Number(cost[1]);
    all += n;
    if (COLLECTOR_OR_COMPILER.test(fn)) matched += n;
  }
  return { all, matched };
}

function run(url: string, amount: number): Promise<void> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, amount, timeout: 120 }, (err, r) => {
      if (err) reject(err);
      else if (r.non2xx + r.errors > 0) reject(new Error(`non-2xx ${r.non2xx}, errors ${r.errors}`));
      else resolve();
    });
  });
}

/** One server under callgrind: WARM GETs, counters zeroed, MEASURED GETs, its main thread's count. */
async function count(servers: OnOffServers, mode: Mode): Promise<Count> {
  const dir = mkdtempSync(join(tmpdir(), `capstan-bench-instructions-${servers.name}-${mode}-`));
  const out = join(dir, 'callgrind');
  let child: ChildProcess | undefined;
  try {
    const started = await startNode([join(here, servers.script), dir, mode], /serving on (http:\/\/127\.0\.0\.1:\d+)/, [], {}, [
      'valgrind', '--quiet', '--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}.%p`,
    ]);
    child = started.child;
    const url = await createBenchObject(started.match[1]!);
    await run(url, WARM);
    execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
    await run(url, MEASURED);
    execFileSync('callgrind_control', ['--dump=measured', String(child.pid)], { stdio: 'ignore' });
    // The main thread's file of the dump: <out>.<pid>.1-01 (part 1, thread 1).
    const main = readdirSync(dir).find((f) => f.startsWith(`callgrind.${child!.pid}.1-01`));
    if (!main) throw new Error(`no callgrind dump of the main thread in ${dir}`);
    const { all, matched } = selfInstructions(join(dir, main));
    return { all: all / MEASURED, collectorAndCompiler: matched / MEASURED };
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function instructions(): Promise<void> {
  const wanted = process.env['BENCH_INSTRUCTIONS_FEATURES']?.split(',');
  const features = [metricsServers, apfServers, auditServers].filter((f) => !wanted || wanted.includes(f.name));
  console.log(`\n== instructions: the main thread's instructions per GET of one ConfigMap under callgrind, ${MEASURED} GETs after ${WARM} (${CONNECTIONS} connections), each feature's servers on and off at once`);
  if (!hasValgrind()) {
    console.log('valgrind (callgrind) is not installed: skipped');
    figure('instructions', 'instructions per GET', 'skipped: no valgrind');
    return;
  }
  for (const servers of features) {
    const [off, on] = await Promise.all([count(servers, 'off'), count(servers, 'on')]);
    const own = (c: Count) => c.all - c.collectorAndCompiler;
    const cost = on.all / off.all - 1;
    const ownCost = own(on) / own(off) - 1;
    const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
    const line = `${k(off.all)} off, ${k(on.all)} on: ${(cost * 100).toFixed(1)}%; without the collector and compiler (${k(off.collectorAndCompiler)} / ${k(on.collectorAndCompiler)}): ${(ownCost * 100).toFixed(1)}%`;
    console.log(`${servers.name.padEnd(8)} ${line}  (the time target: <= ${(servers.targetCost * 100).toFixed(0)}%)`);
    figure('instructions', `${servers.name}: instructions per GET`, line);
  }
}
