// New audit IDs are random version-4 UUIDs, as crypto.randomUUID writes them, never repeat, and come
// with their bytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newAuditId, newMadeAuditId } from '../../src/audit/audit-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('audit IDs', { timeout: 20_000 }, () => {
  it('are lowercase version-4 UUIDs, all different, over many batches', () => {
    const first = newMadeAuditId();
    const seen = new Set<string>();
    // Every hex digit turns up at every free position (the batches' text is not stale or shifted).
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 5000; i++) {
      // Plain IDs and IDs with their bytes (an auditing server's) in turn, from the same batches.
      const made = i % 2 === 1 ? newMadeAuditId() : undefined;
      const id = made?.text ?? newAuditId();
      assert.match(id, UUID_V4);
      // Its bytes, which the log's lines copy, are its text.
      if (made) assert.equal(Buffer.from(made.bytes.buffer, made.bytes.byteOffset + made.at, 36).toString('latin1'), id);
      assert.equal(id.length, 36);
      assert.ok(!seen.has(id), `${id} repeated`);
      seen.add(id);
      for (let c = 0; c < 36; c++) digits[c]!.add(id[c]!);
    }
    // A batch's bytes are not written again by later batches (a watch's last line copies its ID late).
    assert.equal(Buffer.from(first.bytes.buffer, first.bytes.byteOffset + first.at, 36).toString('latin1'), first.text);
    for (const c of [0, 7, 9, 15, 20, 35]) assert.equal(digits[c]!.size, 16, `position ${c}`);
    assert.deepEqual([...digits[14]!], ['4']);
    assert.deepEqual([...digits[19]!].sort(), ['8', '9', 'a', 'b']);
  });
});
