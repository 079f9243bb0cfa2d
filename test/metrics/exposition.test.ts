// The exposition spells a value that is not a number `NaN`, as the text format and the reference's
// Go client do: prom-client writes `Nan` (the event loop's mean delay over a scrape interval with
// no sample in it), which the strict parser of the tests refused now and then.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Gauge, Registry } from 'prom-client';
import { withNaNSpelled } from '../../src/metrics/server-metrics.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

describe('the exposition', { timeout: 5000 }, () => {
  it('writes a gauge that is not a number as NaN, which the text format parses', async () => {
    const registry = new Registry();
    new Gauge({ name: 'lag_mean_seconds', help: 'mean', registers: [registry] }).set(NaN);
    new Gauge({ name: 'other', help: 'a number', labelNames: ['l'], registers: [registry] }).set({ l: 'x Nan' }, 2);
    const written = await registry.metrics();
    // What prom-client gives, unmended.
    assert.match(written, /^lag_mean_seconds Nan$/m);
    const text = withNaNSpelled(written);
    assert.match(text, /^lag_mean_seconds NaN$/m);
    const families = parsePrometheusText(text);
    assert.ok(Number.isNaN(sampleValue(families, 'lag_mean_seconds', {}) ?? 0));
    assert.equal(sampleValue(families, 'other', { l: 'x Nan' }), 2);
  });

  it('leaves comments and labels that say Nan as they are', () => {
    const text = '# HELP a reads Nan\n# TYPE a gauge\na{l="v Nan"} 1\nb Nan\n';
    assert.equal(withNaNSpelled(text), '# HELP a reads Nan\n# TYPE a gauge\na{l="v Nan"} 1\nb NaN\n');
  });
});
