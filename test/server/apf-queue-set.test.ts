// One priority level's seats and queues (server/flowcontrol/queue-set.ts): shuffle-sharding hands,
// fair queuing by virtual finish time among queues, refusals with the reference's reasons.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventEmitter } from 'node:events';
import { dealHand, flowHash, QueueSet, type Seat } from '../../src/server/flowcontrol/queue-set.js';

const quiet = { queued() {} };
const config = { concurrencyLimit: 1, queues: 8, handSize: 2, queueLengthLimit: 3, waitLimitMs: 10_000 };

describe('API Priority and Fairness queue set', { timeout: 10_000 }, () => {
  it('deals each flow a hand of distinct queues, the same every time', () => {
    for (const [queues, handSize] of [[128, 6], [64, 6], [16, 4], [3, 3]] as const) {
      for (const user of ['alice', 'bob', 'system:serviceaccount:kube-system:job-controller', '']) {
        const hand = dealHand(flowHash('global-default', user), queues, handSize);
        assert.equal(hand.length, handSize);
        assert.equal(new Set(hand).size, handSize, `${hand}`);
        assert.ok(hand.every((q) => Number.isInteger(q) && q >= 0 && q < queues), `${hand}`);
        assert.deepEqual(dealHand(flowHash('global-default', user), queues, handSize), hand);
      }
    }
    assert.notDeepEqual(dealHand(flowHash('global-default', 'alice'), 128, 6), dealHand(flowHash('global-default', 'bob'), 128, 6));
  });

  it('serves the queues in turns, refuses a full queue, times out a long wait, and drops a request whose client left', async () => {
    const set = new QueueSet(config);
    const client = new EventEmitter();
    const first = set.admit([0], quiet, client);
    assert.equal(typeof first, 'object');
    assert.ok(!(first instanceof Promise));
    const order: string[] = [];
    const wait = (name: string, queue: number) => {
      const p = set.admit([queue], quiet, client) as Promise<Seat | string>;
      assert.ok(p instanceof Promise);
      return p.then((outcome) => (order.push(name), outcome));
    };
    // Three from a heavy flow in queue 0 (full now), then one from a light flow in queue 1.
    const heavy = [wait('heavy1', 0), wait('heavy2', 0), wait('heavy3', 0)];
    assert.equal(set.admit([0], quiet, client), 'queue-full');
    const light = wait('light', 1);
    // Fair queuing (1.25): queue 0 is charged the time its request held the seat, queue 1 (waiting
    // meanwhile) nothing; past that, the light flow's virtual finish comes first.
    await new Promise((r) => setTimeout(r, 20));
    (first as Seat).release();
    const seat1 = await light;
    (seat1 as Seat).release();
    for (const next of heavy) ((await next) as Seat).release();
    assert.deepEqual(order, ['light', 'heavy1', 'heavy2', 'heavy3']);
    assert.ok(set.idle());

    // The wait limit's timer does not keep a process alive (a server has its listener for that); this test has nothing else.
    const keepAlive = setTimeout(() => {}, 5_000);
    const short = new QueueSet({ ...config, waitLimitMs: 50 });
    const holder = short.admit([0], quiet, client) as Seat;
    assert.equal(await short.admit([0], quiet, client), 'time-out');
    const gone = new EventEmitter();
    const leaving = short.admit([1], quiet, gone);
    gone.emit('close');
    assert.equal(await leaving, 'cancelled');
    holder.release();
    clearTimeout(keepAlive);
    assert.ok(short.idle());

    const rejecting = new QueueSet({ ...config, queues: 0 });
    const only = rejecting.admit([], quiet, client) as Seat;
    assert.equal(rejecting.admit([], quiet, client), 'concurrency-limit');
    only.release();
  });
});
