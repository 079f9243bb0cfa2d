// The reliability probe's short form inside npm test (npm run test:reliability runs the long
// form): kill -9 under 32 writers, fuzzed requests, hostile bodies, the RBAC matrix and the data
// folder's modes, each on its own capstan process, in about two minutes. Each asserts the bounds of
// issue 14's "Done when" (a bound waiting for another item's fix is printed, not asserted).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeFigure, Figures, missed } from './figures.js';
import { fileModes } from './file-modes.js';
import { fuzz, FUZZ_SERVER_ARGS } from './fuzz.js';
import { hostile, hostileRequests } from './hostile.js';
import { kill9 } from './kill9.js';
import { rbacMatrix } from './rbac-matrix.js';
import { scratchDir, startProbeServer } from './server.js';

/** Prints the figures, then asserts that every bound not waiting for another item is within. */
function within(figures: Figures): void {
  for (const f of figures.all) console.log(`  ${describeFigure(f)}`);
  assert.deepEqual(missed(figures.all).map(describeFigure), []);
}

describe('reliability probe, short form (issue 14)', () => {
  it('loses no acknowledged write over kill -9 and a resumed watch misses nothing', { timeout: 90_000 }, async () => {
    const scratch = scratchDir('kill9');
    const figures = new Figures('kill -9');
    try {
      await kill9(join(scratch.dir, 'data'), { rounds: 3, writers: 32, keysPerWriter: 4, minMs: 500, maxMs: 1500, seed: 1 }, figures);
    } finally {
      scratch.remove();
    }
    within(figures);
    assert.ok(Number(figures.all.find((f) => f.name === 'acknowledged writes checked')!.value) > 0, 'no write was acknowledged');
  });

  it('answers fuzzed requests without a crash, 5xx, non-Status error, hang or unwanted change', { timeout: 120_000 }, async () => {
    const scratch = scratchDir('fuzz');
    const server = await startProbeServer(scratch.dir, FUZZ_SERVER_ARGS);
    const figures = new Figures('fuzz');
    try {
      const result = await fuzz(server, { inputs: 1500, seed: Date.now() % 100_000, workers: 4, hangMs: 10_000 }, figures);
      assert.equal(result.inputs, 1500);
    } finally {
      await server.stop();
      scratch.remove();
    }
    within(figures);
  });

  it('refuses hostile bodies with a 4xx Status within 200 ms and 50 MB', { timeout: 60_000 }, async () => {
    const scratch = scratchDir('hostile');
    const server = await startProbeServer(scratch.dir);
    const figures = new Figures('hostile bodies');
    try {
      await hostile(server, hostileRequests(), { ms: 200, bytes: 50 * 1024 * 1024 }, figures);
    } finally {
      await server.stop();
      scratch.remove();
    }
    within(figures);
  });

  it('answers every RBAC matrix cell as the reference', { timeout: 90_000 }, async () => {
    const scratch = scratchDir('rbac');
    const figures = new Figures('rbac matrix');
    try {
      const { cells } = await rbacMatrix(scratch.dir, figures);
      assert.ok(cells > 1000);
    } finally {
      scratch.remove();
    }
    within(figures);
  });

  it('keeps the data folder private', { timeout: 30_000 }, async () => {
    const scratch = scratchDir('modes');
    const figures = new Figures('file modes');
    try {
      await fileModes(join(scratch.dir, 'data'), figures);
    } finally {
      scratch.remove();
    }
    within(figures);
  });
});
