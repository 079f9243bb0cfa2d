// This build against another (BENCH_BUILD_OTHER=<a checkout of it, built>): GET of one small
// ConfigMap on both at once, and the server's CPU per request (on-off.ts), to tell a
// change of a few percent from the machine's moods. No target: a tool for changes to the GET path.
//   BENCH_BUILD_OTHER=/work/wt/base node dist/bench/run.js builds
import { compareOnOff } from './on-off.js';

export function builds(): Promise<void> {
  const other = process.env['BENCH_BUILD_OTHER'];
  if (!other) {
    console.log('\n== builds: set BENCH_BUILD_OTHER to another build (a checkout, built) to compare this one with it');
    return Promise.resolve();
  }
  return compareOnOff({ name: 'builds', script: 'build-server.js', labels: { off: `the build in ${other}`, on: 'this build' }, note: 'the cost is this build\'s CPU per request over the other\'s, less one' });
}
