// The timing ratio histogram as the reference's: every nanosecond one observation of
// numerator ÷ denominator, so buckets hold nanoseconds, the count is the time since the series
// was made, and the sum the ratio's integral.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { TimingRatio, TimingRatioHistogram } from '../../src/metrics/timing-ratio.js';

const LIMIT = { timeout: 10_000 };

describe('timing ratio histograms', () => {
  it('counts each nanosecond in the bucket of the ratio it had', LIMIT, () => {
    const r = new TimingRatio({ level: 'a' }, [0, 0.5, 1], 0, 4, 1000);
    r.set(1, 1002); // 2 ms at 0
    r.set(3, 1003); // 1 ms at 0.25
    r.setDenominator(2, 1007); // 4 ms at 0.75
    r.accrue(1008); // 1 ms at 1.5
    assert.deepEqual([...r.bucketNs], [2e6, 1e6, 4e6, 1e6]);
    assert.equal(Math.round(r.sum), Math.round(0.25 * 1e6 + 0.75 * 4e6 + 1.5 * 1e6));
    // Time never runs backwards: an older reading adds nothing.
    r.accrue(1005);
    assert.equal(r.bucketNs.reduce((a, b) => a + b, 0), 8e6);
  });

  it('counts numerators of any size, whole or not, in their buckets', LIMIT, () => {
    const r = new TimingRatio({ level: 'a' }, [0.5, 10, 1000], 0, 2, 0);
    r.set(20, 1); // 1 ms at 0
    r.set(5000, 3); // 2 ms at 10
    r.set(0.5, 6); // 3 ms at 2500
    r.set(3, 10); // 4 ms at 0.25
    r.accrue(15); // 5 ms at 1.5
    assert.deepEqual([...r.bucketNs], [1e6 + 4e6, 2e6 + 5e6, 0, 3e6]);
    assert.equal(Math.round(r.sum), Math.round(10 * 2e6 + 2500 * 3e6 + 0.25 * 4e6 + 1.5 * 5e6));
    // Read again with no time passed: nothing more.
    r.accrue(15);
    assert.deepEqual([...r.bucketNs], [5e6, 7e6, 0, 3e6]);
  });

  it('writes cumulative buckets of whole nanoseconds, the sum and the count, with the reference\'s help', LIMIT, async () => {
    const registry = new Registry();
    const h = new TimingRatioHistogram({ name: 'x_utilization', help: 'EXPERIMENTAL: [ALPHA] Observations', labelNames: ['phase'], buckets: [0, 1], registry });
    const s = h.series({ phase: 'waiting' }, 1, 2);
    await new Promise((r) => setTimeout(r, 20));
    s.set(0, performance.now());
    const text = await registry.metrics();
    assert.match(text, /^# HELP x_utilization EXPERIMENTAL: \[ALPHA\] Observations$/m);
    assert.match(text, /^# TYPE x_utilization histogram$/m);
    const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const zero = value('x_utilization_bucket{phase="waiting",le="0"}');
    const one = value('x_utilization_bucket{phase="waiting",le="1"}');
    const count = value('x_utilization_count{phase="waiting"}');
    assert.ok(Number.isInteger(one) && one >= 19e6, `${one} ns at 0.5`);
    assert.ok(zero < one && one <= count && count === value('x_utilization_bucket{phase="waiting",le="+Inf"}'));
    assert.ok(Math.abs(value('x_utilization_sum{phase="waiting"}') - 0.5 * (one - zero)) < 1e3);
  });
});
