// resource.Quantity: parsing (the reference's grammar, rounding and errors), the text written back,
// and exact arithmetic.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Quantity, QUANTITY_FORMAT_ERROR, QUANTITY_NUMERIC_ERROR, QUANTITY_SUFFIX_ERROR, QuantityError, quantityError,
} from '../../src/api/quantity.js';

describe('Quantity', () => {
  it('writes back what it parsed as the reference does: canonical, or the text itself when it already looked canonical', () => {
    const table: Array<[string, string, string]> = [
      // input, written, format
      ['100m', '100m', 'DecimalSI'],
      ['1Gi', '1Gi', 'BinarySI'],
      ['1.5', '1500m', 'DecimalSI'],
      ['0.5', '500m', 'DecimalSI'],
      ['1000m', '1', 'DecimalSI'],
      ['1000', '1k', 'DecimalSI'],
      ['1000M', '1G', 'DecimalSI'],
      ['1024Mi', '1Gi', 'BinarySI'],
      ['1.5Gi', '1536Mi', 'BinarySI'],
      ['2048Ki', '2Mi', 'BinarySI'],
      ['500Ki', '500Ki', 'BinarySI'],
      ['0.5Ki', '512', 'BinarySI'],
      ['1.1Ki', '1126400m', 'BinarySI'],
      ['.001Ki', '1024m', 'BinarySI'],
      ['.000000001Ki', '1024n', 'DecimalSI'],
      ['.000000000001Ki', '2n', 'DecimalSI'],
      ['1e3', '1e3', 'DecimalExponent'],
      ['1E3', '1E3', 'DecimalExponent'],
      ['1.5e3', '1500', 'DecimalExponent'],
      ['1e-3', '1e-3', 'DecimalExponent'],
      ['+1', '+1', 'DecimalSI'],
      ['-1Ki', '-1Ki', 'BinarySI'],
      ['0', '0', 'DecimalSI'],
      ['0Gi', '0', 'BinarySI'],
      ['0.1m', '100u', 'DecimalSI'],
      ['3.001n', '4n', 'DecimalSI'],
      ['0.0000000001', '1n', 'DecimalSI'],
      ['-0.0000000001', '-1n', 'DecimalSI'],
      ['100.035k', '100.035k', 'DecimalSI'],
      ['1.500', '1.500', 'DecimalSI'],
      ['1.', '1.', 'DecimalSI'],
      ['.', '0', 'DecimalSI'],
      ['9Ei', '9223372036854775807', 'BinarySI'],
      ['12E', '12E', 'DecimalSI'],
    ];
    for (const [input, written, format] of table) {
      const q = Quantity.parse(input);
      assert.equal(q.toString(), written, input);
      assert.equal(q.format, format, input);
    }
    assert.equal(Quantity.parse('+1').canonical(), '1');
    assert.equal(Quantity.parse('1E3').canonical(), '1e3');
    assert.equal(Quantity.parse('100.035k').canonical(), '100035');
  });

  it("refuses what the reference refuses, with its messages", () => {
    const wrong = ['', 'aoeu', '1.1.M', '1+1.0M', '0.1am', ' 1', '1 '];
    const suffix = ['0.1mi', '.5i', '1i', '-3.01i', '-3.01e-', '1e', '1Ki5'];
    for (const text of wrong) assert.throws(() => Quantity.parse(text), (e: unknown) => e instanceof QuantityError && e.message === QUANTITY_FORMAT_ERROR, text);
    for (const text of suffix) assert.throws(() => Quantity.parse(text), (e: unknown) => e instanceof QuantityError && e.message === QUANTITY_SUFFIX_ERROR, text);
    assert.equal(QUANTITY_FORMAT_ERROR, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    // JSON values are trimmed, and may be numbers (as the reference's decoder takes them).
    assert.equal(Quantity.from(' 2Gi ')?.toString(), '2Gi');
    assert.equal(Quantity.from(0.5)?.toString(), '500m');
    assert.equal(Quantity.from('x'), undefined);
    assert.equal(Quantity.from(null), undefined);
  });

  it("gives the decoder's error for a text (trimmed first), the suffix error for an exponent beyond int64", () => {
    assert.equal(quantityError(' 2Gi '), undefined);
    assert.equal(quantityError('1.2.3'), QUANTITY_FORMAT_ERROR);
    assert.equal(quantityError('1kk'), QUANTITY_SUFFIX_ERROR);
    assert.equal(quantityError('1e99999999999999999999'), QUANTITY_SUFFIX_ERROR);
    assert.equal(quantityError('1e-99999999999999999999'), QUANTITY_SUFFIX_ERROR);
  });

  it('holds exponents up to 10^10000 nanos, and refuses larger ones rather than expanding them', () => {
    assert.equal(Quantity.parse('1e9990').canonical(), '1e9990');
    assert.equal(Quantity.parse('1000E').toString(), '1', 'a decimal SI value past "E" loses its exponent, as in the reference');
    for (const text of ['1e10000', '1e2000000000', '12345678901234567890e9992']) {
      assert.throws(() => Quantity.parse(text), (e: unknown) => e instanceof QuantityError && e.message === QUANTITY_NUMERIC_ERROR, text);
    }
    // The exponent is an int32 in the reference: 2^32 wraps to 0.
    assert.equal(Quantity.parse('1e4294967296').cmp(Quantity.of(1)), 0);
  });

  it("keeps the reference's int64Amount and kept text for what its fast path parses", () => {
    assert.deepEqual(Quantity.parse('0.5').amount, { value: 5n, scale: -1 });
    assert.equal(Quantity.parse('0.5').text, undefined);
    assert.deepEqual(Quantity.parse('-1Ki').amount, { value: -1024n, scale: 0 });
    assert.equal(Quantity.parse('-1Ki').text, '-1Ki');
    assert.deepEqual(Quantity.parse('0').amount, { value: 0n, scale: 0 });
    assert.equal(Quantity.parse('0').text, '0');
    assert.equal(Quantity.parse('1.5Gi').amount, undefined, 'the slow path holds an inf.Dec');
  });

  it('adds and subtracts exactly; a sum is canonical in the format of its first non-zero term', () => {
    const sum = (...xs: string[]) => xs.map((x) => Quantity.parse(x)).reduce((a, b) => a.add(b), Quantity.zero());
    assert.equal(sum('100m', '900m').toString(), '1');
    assert.equal(sum('1.5Gi', '512Mi').toString(), '2Gi');
    assert.equal(sum('128Mi', '128Mi').toString(), '256Mi');
    assert.equal(sum('1G', '1Gi').toString(), '2073741824');
    assert.equal(sum('0.1', '0.2').toString(), '300m');
    assert.equal(sum('+1').toString(), '1');
    assert.equal(sum('1e3', '1e3').toString(), '2e3');
    assert.equal(sum('0', '1Gi').format, 'BinarySI');
    assert.equal(Quantity.parse('1Gi').add(Quantity.parse('0')).toString(), '1Gi');
    assert.equal(Quantity.parse('1').sub(Quantity.parse('1500m')).toString(), '-500m');
    assert.equal(Quantity.parse('0').sub(Quantity.parse('1Gi')).toString(), '-1Gi');
    assert.equal(sum('9223372036854775807', '9223372036854775807').toString(), '18446744073709551614');
  });

  it('compares, rounds up to units and thousandths, rounds up to whole units', () => {
    assert.equal(Quantity.parse('100m').cmp(Quantity.parse('50m')), 1);
    assert.equal(Quantity.parse('1').cmp(Quantity.parse('1000m')), 0);
    assert.equal(Quantity.parse('10000T').cmp(Quantity.parse('100Gi')), 1);
    assert.equal(Quantity.parse('1.5').value(), 2n);
    assert.equal(Quantity.parse('-1.5').value(), -2n);
    assert.equal(Quantity.parse('99.5m').milliValue(), 100n);
    assert.equal(Quantity.parse('1Ki').milliValue(), 1_024_000n);
    assert.equal(Quantity.parse('9.01').roundUpToInteger().toString(), '10');
    assert.equal(Quantity.parse('1Gi').roundUpToInteger().toString(), '1Gi');
    // Whole as validation tests it: MilliValue() % 1000 == 0 (so 0.9999 rounds up to a whole 1).
    assert.equal(Quantity.parse('2').isInteger(), true);
    assert.equal(Quantity.parse('500m').isInteger(), false);
    assert.equal(Quantity.parse('0.9999').isInteger(), true);
    assert.equal(Quantity.parse('1.0001').isInteger(), false);
    assert.equal(Quantity.of(3).toString(), '3');
    assert.equal(Quantity.ofMilli(1500).toString(), '1500m');
    assert.equal(JSON.stringify({ cpu: Quantity.parse('0.5') }), '{"cpu":"500m"}');
  });
});
