// Post-start hooks: started stage by stage in their declared order, stopped in that order, and
// checked for readiness under the reference's hook names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostStartHooks, task, type Controller, type HookContext, type PostStartHook } from '../../src/server/hooks.js';

/** A controller whose start waits for `release`, recording what happens in `log`. */
function gated(name: string, log: string[]): Controller & { release(): void } {
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  return {
    release: () => release(),
    async start() {
      log.push(`start ${name}`);
      await gate;
      log.push(`synced ${name}`);
    },
    stop: () => void log.push(`stop ${name}`),
  };
}

// The hooks under test use none of the context.
const ctx = {} as HookContext;

describe('post-start hooks', { timeout: 10_000 }, () => {
  it('starts each stage\'s hooks in declared order, and stops them all in that order', async () => {
    const log: string[] = [];
    const hook = (name: string, stage: PostStartHook['stage']): PostStartHook => ({
      name, stage, create: () => ({ start: async () => void log.push(`start ${name}`), stop: () => void log.push(`stop ${name}`) }),
    });
    const declared: PostStartHook[] = [
      hook('b', 'admission'), hook('a', 'storage'), { name: 'off', stage: 'admission', create: () => undefined }, hook('c', 'admission'),
      { name: 'once', stage: 'storage', create: () => task(async () => void log.push('start once')) }, hook('d', 'serving'),
    ];
    const hooks = new PostStartHooks(declared, ctx);
    await hooks.run('storage');
    assert.deepEqual(log, ['start a', 'start once']);
    await hooks.run('admission');
    await hooks.run('serving');
    assert.deepEqual(log, ['start a', 'start once', 'start b', 'start c', 'start d']);
    await hooks.stop();
    assert.deepEqual(log.slice(5), ['stop b', 'stop a', 'stop c', 'stop d']);
  });

  it('reports "not finished" under the reference\'s name until every hook reporting as it has synced', async () => {
    const log: string[] = [];
    const first = gated('first', log);
    const second = gated('second', log);
    const hooks = new PostStartHooks([
      { name: 'first', stage: 'caches', reportsAs: 'bootstrap-controller', create: () => first },
      { name: 'quiet', stage: 'caches', create: () => task(async () => {}) },
      { name: 'second', stage: 'serving', reportsAs: 'bootstrap-controller', create: () => second },
    ], ctx);
    const checks = hooks.healthChecks();
    assert.deepEqual(checks.map((c) => c.name), ['poststarthook/bootstrap-controller']);
    const check = () => checks[0]!.check();
    assert.equal(await check(), 'not finished');
    const caches = hooks.run('caches');
    assert.equal(await check(), 'not finished', 'while the first syncs');
    first.release();
    await caches;
    assert.equal(await check(), 'not finished', 'the second has not run yet');
    const serving = hooks.run('serving');
    second.release();
    await serving;
    assert.equal(await check(), undefined);
    assert.deepEqual(log, ['start first', 'synced first', 'start second', 'synced second']);
  });

  it('leaves out a name none of whose hooks runs on this server', async () => {
    const hooks = new PostStartHooks([
      { name: 'rbac/bootstrap-roles', stage: 'caches', reportsAs: 'rbac/bootstrap-roles', create: () => undefined },
      { name: 'later', stage: 'serving', reportsAs: 'later', create: () => undefined },
    ], ctx);
    assert.deepEqual(hooks.healthChecks().map((c) => c.name), ['poststarthook/rbac/bootstrap-roles', 'poststarthook/later'], 'not known before their stage');
    await hooks.run('caches');
    assert.deepEqual(hooks.healthChecks().map((c) => c.name), ['poststarthook/later']);
  });

  it('gives a check of another name for one hook\'s readiness, none for a hook that does not run', async () => {
    const log: string[] = [];
    const caches = gated('caches', log);
    const hooks = new PostStartHooks([
      { name: 'watch-caches', stage: 'caches', create: () => caches },
      { name: 'off', stage: 'caches', create: () => undefined },
    ], ctx);
    const sync = hooks.readiness('informer-sync', 'watch-caches')!;
    assert.equal(sync.name, 'informer-sync');
    assert.equal(await sync.check(), 'not finished');
    const run = hooks.run('caches');
    assert.equal(await sync.check(), 'not finished', 'while it syncs');
    caches.release();
    await run;
    assert.equal(await sync.check(), undefined);
    assert.equal(hooks.readiness('other', 'off'), undefined);
    assert.equal(hooks.readiness('other', 'unknown'), undefined);
  });

  it('refuses two hooks of one name', () => {
    const h: PostStartHook = { name: 'x', stage: 'storage', create: () => undefined };
    assert.throws(() => new PostStartHooks([h, h], ctx), /declared twice/);
  });
});
