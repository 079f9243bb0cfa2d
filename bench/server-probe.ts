// Preloaded into the capstan process by the memory benchmark (`node --expose-gc --import
// dist/bench/server-probe.js dist/src/cmd/capstan.js …`): on SIGUSR2 it runs a full GC (when
// exposed) and writes the process's memory breakdown as JSON to $CAPSTAN_PROBE_FILE. Changes
// nothing in the server until signalled.
// With CAPSTAN_PROBE_SNAPSHOT=<dir> it also writes a heap snapshot there (see heap-summary.ts).
import { renameSync, writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

export interface ProbeReport {
  gc: boolean;
  memory: NodeJS.MemoryUsage;
  heap: ReturnType<typeof getHeapStatistics>;
  spaces: Array<{ name: string; used: number; size: number }>;
}

const file = process.env['CAPSTAN_PROBE_FILE'];
if (file) {
  process.on('SIGUSR2', () => void probe(file));
}

async function probe(file: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  // The backing stores of the ArrayBuffers a collection found dead are freed by a sweeper after
  // it, and counted in memoryUsage() until then: a moment later, a second collection.
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc?.();
  const report: ProbeReport = {
    gc: gc !== undefined,
    memory: process.memoryUsage(),
    heap: getHeapStatistics(),
    spaces: getHeapSpaceStatistics().map((s) => ({ name: s.space_name, used: s.space_used_size, size: s.space_size })),
  };
  // BENCH_HEAP_SNAPSHOT=<dir> in the benchmark: a heap snapshot there at each probe (summarise
  // it with `node dist/bench/heap-summary.js <file>`).
  const dir = process.env['CAPSTAN_PROBE_SNAPSHOT'];
  if (dir) writeHeapSnapshot(`${dir}/capstan-${process.pid}-${Date.now()}.heapsnapshot`);
  // Renamed into place, so the reader never sees half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(report));
  renameSync(`${file}.tmp`, file);
}
