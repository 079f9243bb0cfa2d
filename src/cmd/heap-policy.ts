// How far V8's old generation may grow between two full collections, in a process that is one
// server (the capstan command and the kube-apiserver launcher). A server started inside someone
// else's process, or in the shared host of test servers, leaves the heap's policy as it is.
//
// V8 lets the old generation grow by a factor it picks from how fast the collector runs (up to 4×
// what was live). Under steady writes, every young collection promotes what is in flight at that
// moment: requests half done, with the body and value buffers they hold. That is garbage in the
// old generation, and the buffers' memory outside the heap waits with it for the next full
// collection. With V8's factor, 1,000 stalled watchers fed 5,000 objects of 10 KiB peaked between
// 251 and 301 MiB of RSS from one run to the next, as the first full collection came early or
// late. At 1.5× what was live the peak is what is live plus little (250–259 MiB), and a full
// collection of a small live heap is short. Go's collector, the reference's, works alike: it
// collects when the heap has doubled since the last collection (GOGC=100).
//
// Not before a second after the server is ready. The start grows the heap quickly (collecting at
// 1.5× made it ~60 ms longer), and the launcher writes its code cache a second into the run
// (bundled.ts): full collections meanwhile flush the bytecode of what only the start ran, and a
// cache without it made every later start ~50 ms longer.
import { setFlagsFromString } from 'node:v8';

/** The old generation's growth between full collections, in percent of what the last one left. */
export const HEAP_GROWING_PERCENT = 50;

const AFTER_READY_MS = 1000;

/** Sets the growth a second from now (V8 reads it at every full collection). Call once the server is ready. */
export function applyHeapPolicySoon(): void {
  setTimeout(() => setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`), AFTER_READY_MS).unref();
}
