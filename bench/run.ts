// npm run bench: every benchmark, then one summary of every figure and target.
// `node dist/bench/run.js lists watchers` runs only those named; scale runs at SCALE=0.1 within every benchmark unless SCALE is set (crud, lists, watchers, memory, apply, representations, auth, crds, test-env, etcd, metrics, apf, audit, workloads, https, start, scale, builds; and, only when named, instructions).
// Each benchmark runs capstan (`capstan --data-dir <tmp> --secure-port 0`) as its own process on
// 127.0.0.1. BENCH_PROF=<dir> runs the servers under --cpu-prof (profiles land in <dir>).
import { cpus, loadavg } from 'node:os';
import { figure, machineBusyMs, ownTreeMs, printSummary, waitForQuiet } from './common.js';
import { crud } from './crud.js';
import { lists } from './lists.js';
import { memory } from './memory.js';
import { watchers } from './watchers.js';
import { apply } from './apply.js';
import { representations } from './representations.js';
import { auth } from './auth.js';
import { crds } from './crds.js';
import { testEnv } from './test-env.js';
import { etcd } from './etcd.js';
import { metrics } from './metrics.js';
import { apf } from './apf.js';
import { audit } from './audit.js';
import { workloads } from './workloads.js';
import { https } from './https.js';
import { start } from './start.js';
import { scale } from './scale.js';
import { builds } from './builds.js';
import { instructions } from './instructions.js';

/** Before each benchmark, wait up to this long for other processes to leave the CPU alone. */
const QUIET_WAIT_MS = Number(process.env['BENCH_QUIET_WAIT_MS'] ?? 10_000);

const benchmarks: Record<string, () => Promise<void>> = { crud, lists, watchers, memory, apply, representations, auth, crds, 'test-env': testEnv, etcd, metrics, apf, audit, workloads, https, start, scale, builds, instructions };
/** Run only when named: minutes under valgrind, for figures that are no target. */
const ONLY_NAMED = new Set(['instructions']);

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  for (const name of names) if (!(name in benchmarks)) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(benchmarks).join(', ')}`);
  const started = performance.now();
  console.log(`${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start`);
  for (const name of names.length ? names : Object.keys(benchmarks).filter((n) => !ONLY_NAMED.has(n))) {
    const quiet = await waitForQuiet(QUIET_WAIT_MS);
    if (quiet.busy >= 0.3) console.log(`\n(the machine is busy: ${(quiet.busy * 100).toFixed(0)}% of a core used by other processes after waiting ${(quiet.waitedMs / 1000).toFixed(0)} s; figures will be skewed)`);
    const t = performance.now();
    const busy = machineBusyMs();
    const own = ownTreeMs();
    await (name === 'scale' ? scale(names.length === 0) : benchmarks[name]!());
    await new Promise((r) => setTimeout(r, 100)); // children reaped
    const seconds = (performance.now() - t) / 1000;
    // CPU the rest of the machine used meanwhile: other load skews every figure on a small machine.
    const foreign = Math.max(0, machineBusyMs() - busy - (ownTreeMs() - own)) / 10 / seconds;
    console.log(`(${name}: ${seconds.toFixed(1)} s; other processes used ${foreign.toFixed(0)}% of a core meanwhile, of ${cpus().length} cores)`);
    figure(name, 'other load on the machine', `${foreign.toFixed(0)}% of a core (of ${cpus().length})${foreign > 25 ? ': figures skewed' : ''}`);
  }
  printSummary();
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
