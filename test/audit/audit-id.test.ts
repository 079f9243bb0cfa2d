// New audit IDs are random version-4 UUIDs, as crypto.randomUUID writes them, and never repeat.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newAuditId } from '../../src/audit/audit-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('audit IDs', { timeout: 20_000 }, () => {
  it('are lowercase version-4 UUIDs, all different, over many batches', () => {
    const seen = new Set<string>();
    // Every hex digit turns up at every free position (the batches' text is not stale or shifted).
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 5000; i++) {
      const id = newAuditId();
      assert.match(id, UUID_V4);
      assert.equal(id.length, 36);
      assert.ok(!seen.has(id), `${id} repeated`);
      seen.add(id);
      for (let c = 0; c < 36; c++) digits[c]!.add(id[c]!);
    }
    for (const c of [0, 7, 9, 15, 20, 35]) assert.equal(digits[c]!.size, 16, `position ${c}`);
    assert.deepEqual([...digits[14]!], ['4']);
    assert.deepEqual([...digits[19]!].sort(), ['8', '9', 'a', 'b']);
  });
});
