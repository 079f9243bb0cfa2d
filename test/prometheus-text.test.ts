// The strict text-format reader the /metrics tests rely on refuses what Prometheus would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

const GOOD = `# HELP a_total [STABLE] Things.
# TYPE a_total counter
a_total{x="1",y="q\\"uote\\\\d"} 3
# TYPE h histogram
h_bucket{le="1"} 1
h_bucket{le="+Inf"} 2
h_sum 4.5
h_count 2
`;

describe('parsePrometheusText', { timeout: 5000 }, () => {
  it('reads families, labels with escapes, and histograms', () => {
    const m = parsePrometheusText(GOOD);
    assert.equal(m.get('a_total')?.help, '[STABLE] Things.');
    assert.equal(sampleValue(m, 'a_total', { x: '1', y: 'q"uote\\d' }), 3);
    assert.equal(sampleValue(m, 'h_count', {}), 2);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a missing final newline', GOOD.trimEnd(), /newline/],
    ['a bad value', '# TYPE a gauge\na one\n', /not a number/],
    ['an unquoted label', '# TYPE a gauge\na{x=1} 1\n', /not quoted/],
    ['a series twice', '# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\n', /twice/],
    ['a family interleaved', '# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x="2"} 1\n', /outside/],
    ['buckets not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', /fewer/],
    ['+Inf not _count', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 2\n', /not _count/],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1\n', /without le/],
    ['a TYPE after samples', 'a 1\n# TYPE a gauge\n', /after its samples/],
  ];
  for (const [what, text, error] of bad) {
    it(`refuses ${what}`, () => assert.throws(() => parsePrometheusText(text), error));
  }
});
