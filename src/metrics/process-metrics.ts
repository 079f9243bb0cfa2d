// The process's own metrics: prom-client's default ones (process_cpu_seconds_total,
// process_resident_memory_bytes, process_start_time_seconds, process_open_fds, …, and the nodejs_*
// ones in place of the reference's go_*), all but nodejs_gc_duration_seconds. That one observes
// every garbage collection through perf_hooks, and Node then makes and delivers an entry for each
// one: 0.15–0.2 µs of every GET's CPU, at a GC every few hundred requests — for a figure of
// Node's that no kube-apiserver dashboard reads.
import type { Registry } from 'prom-client';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

const COLLECTORS = [
  processCpuTotal, processStartTime, osMemoryHeap, processOpenFileDescriptors, processMaxFileDescriptors, eventLoopLag, processResources, processHandles,
  processRequests, heapSizeAndUsed, heapSpacesSizeAndUsed, version,
];

/** Adds the process's metrics to `registry` (their monitors live as long as the process). */
export function collectProcessMetrics(registry: Registry): void {
  // The precision of the event loop's delay: prom-client's default.
  for (const collect of COLLECTORS) collect(registry, { eventLoopMonitoringPrecision: 10 });
}
