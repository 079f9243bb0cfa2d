// npm run test:reliability: the long form of the probe (probe.test.ts runs a short form inside
// npm test). Every probe prints its figures; the run fails when a bound not waiting for another
// item's fix is missed. Sizes can be lowered by environment (KILL_ROUNDS, FUZZ_INPUTS, W, N, R,
// SLOW_HEADERS) for a quicker look; ONLY=kill9,fuzz,... runs some of the probes.
import { join } from 'node:path';
import { Figures, missed, printFigures, type Figure } from './figures.js';
import { fileModes } from './file-modes.js';
import { fuzz, FUZZ_SERVER_ARGS } from './fuzz.js';
import { hostile, hostileRequests } from './hostile.js';
import { kill9 } from './kill9.js';
import { rbacMatrix } from './rbac-matrix.js';
import { scratchDir, startProbeServer, type ProbeServer } from './server.js';
import { slowHeaderClients, slowWatchers } from './slow-clients.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const only = process.env['ONLY']?.split(',');
const wanted = (probe: string) => !only || only.includes(probe);

/** Runs `probe` against a server of its own (started with `args`) on a scratch folder, then prints its figures. */
async function onServer(name: string, probe: (server: ProbeServer, figures: Figures) => Promise<void>, args: string[] = []): Promise<Figure[]> {
  const scratch = scratchDir(name);
  const server = await startProbeServer(scratch.dir, args);
  const figures = new Figures(name);
  try {
    await probe(server, figures);
  } finally {
    if (process.env['DEBUG_PROBE']) console.log(server.stderr());
    await server.stop();
    scratch.remove();
  }
  printFigures(figures.all);
  return figures.all;
}

/** Runs `probe` with a scratch folder of its own (it starts its servers itself). */
async function inFolder(name: string, probe: (dir: string, figures: Figures) => Promise<unknown>): Promise<Figure[]> {
  const scratch = scratchDir(name);
  const figures = new Figures(name);
  try {
    await probe(scratch.dir, figures);
  } finally {
    scratch.remove();
  }
  printFigures(figures.all);
  return figures.all;
}

async function main(): Promise<void> {
  const all: Figure[] = [];
  const started = performance.now();
  if (wanted('kill9')) all.push(...(await inFolder('kill -9', (dir, f) => kill9(join(dir, 'data'), { rounds: env('KILL_ROUNDS', 12), writers: 32, keysPerWriter: 8, minMs: 1000, maxMs: 4000, seed: env('SEED', 14) }, f))));
  if (wanted('fuzz')) all.push(...(await onServer('fuzz', (s, f) => fuzz(s, { inputs: env('FUZZ_INPUTS', 100_000), seed: env('SEED', 14), workers: 4, hangMs: 10_000 }, f).then(() => undefined), FUZZ_SERVER_ARGS)));
  if (wanted('hostile')) all.push(...(await onServer('hostile bodies', (s, f) => hostile(s, hostileRequests(), { ms: 200, bytes: 50 * 1024 * 1024 }, f))));
  if (wanted('rbac')) all.push(...(await inFolder('rbac matrix', (dir, f) => rbacMatrix(dir, f))));
  if (wanted('modes')) all.push(...(await inFolder('file modes', (dir, f) => fileModes(join(dir, 'data'), f))));
  if (wanted('slow')) all.push(...(await onServer('slow watchers', (s, f) => slowWatchers(s, { watchers: env('W', 1000), objects: env('N', 5000), size: 10 * 1024, rate: env('R', 250) }, f))));
  if (wanted('slow-headers')) all.push(...(await onServer('slow-header clients', (s, f) => slowHeaderClients(s, { clients: env('SLOW_HEADERS', 200), byteEveryMs: 1000, waitMs: 40_000 }, f))));
  const failed = missed(all);
  console.log(`\nreliability probe: ${all.length} figures in ${((performance.now() - started) / 1000).toFixed(0)} s; ${failed.length ? `${failed.length} bounds MISSED` : 'every bound within (or waiting for its item)'}`);
  if (failed.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
