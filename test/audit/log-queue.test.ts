// The audit log's queue: lines encoded as they are taken, written whole and in order (UTF-8 as
// they were), a full queue dropping and counting rather than holding the request, and what is
// held written on close.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EncodedLineQueue, type EncodedLines } from '../../src/audit/encoded-queue.js';
import { decodedLines as decoded } from './decoded-lines.js';


describe('audit log queue', { timeout: 10_000 }, () => {
  it('writes every line taken, whole and in order, in few writes', async () => {
    const writes: EncodedLines[][] = [];
    // Copies: the queue reuses its buffers once a write is done.
    const queue = new EncodedLineQueue({ bufferSize: 10_000, batchLines: 512, gatherMs: 5, name: 'log' }, async (chunks) => {
      writes.push(chunks.map((c) => ({ buffer: Buffer.from(c.buffer), ends: [...c.ends] })));
    });
    const sent: string[] = [];
    const big = `{"message":"${'x'.repeat(300_000)}"}\n`;
    for (let i = 0; i < 2_000; i++) {
      const line = i === 700 ? big : `{"n":${i},"user":"zoë ✓ 𝄞"}\n`;
      sent.push(line);
      assert.equal(queue.push(line), true);
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    await queue.close();
    assert.deepEqual(decoded(writes), sent);
    assert.ok(writes.length < 50, `${writes.length} writes`);
    assert.equal(queue.dropped, 0);
  });

  it('keeps where each line ends when a buffer gathers thousands of lines, and again once its buffer is reused', async () => {
    let release: () => void = () => {};
    const writes: EncodedLines[][] = [];
    // The first write waits: meanwhile 9,000 short lines gather in one buffer (past its first room for 4,096 ends).
    const queue = new EncodedLineQueue({ bufferSize: 20_000, batchLines: 20_000, gatherMs: 1, name: 'log' }, async (chunks) => {
      writes.push(chunks.map((c) => ({ buffer: Buffer.from(c.buffer), ends: [...c.ends] })));
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    });
    const sent: string[] = [];
    const take = (line: string) => {
      sent.push(line);
      assert.equal(queue.push(line), true);
    };
    take('first\n');
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 9_000; i++) take(`${i}\n`);
    release();
    await new Promise((r) => setTimeout(r, 20));
    // The buffers written before are reused now: fewer lines than they held, with ends of their own.
    for (let i = 0; i < 3; i++) take(`again ${i}\n`);
    await queue.close();
    assert.deepEqual(decoded(writes), sent);
    assert.equal(writes.length, 3);
  });

  it('drops and counts lines past its buffer while the writer is slow, and never waits for it', async () => {
    let release: () => void = () => {};
    const writes: EncodedLines[][] = [];
    const queue = new EncodedLineQueue({ bufferSize: 10, batchLines: 1, gatherMs: 5, name: 'log' }, async (chunks) => {
      writes.push(chunks.map((c) => ({ buffer: Buffer.from(c.buffer), ends: [...c.ends] })));
      await new Promise<void>((r) => (release = r));
    });
    const taken = Array.from({ length: 25 }, (_, i) => queue.push(`line ${i}\n`));
    // The first goes to the writer at once; ten more wait; the rest are dropped.
    assert.deepEqual(taken, [...Array<boolean>(11).fill(true), ...Array<boolean>(14).fill(false)]);
    assert.equal(queue.dropped, 14);
    const closed = queue.close();
    while (writes.length < 2) {
      release();
      await new Promise((r) => setImmediate(r));
    }
    release();
    await closed;
    assert.deepEqual(decoded(writes), Array.from({ length: 11 }, (_, i) => `line ${i}\n`));
  });
});
