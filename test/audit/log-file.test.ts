// The rotated audit log: lines written in one go that pass the size limit several times over rotate
// as many times, each backup under a name of its own (named to the millisecond, they once took
// the same name and the later was renamed over the earlier: whole events lost).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RotatingFile } from '../../src/audit/log-file.js';

describe('audit log file rotation', { timeout: 20_000 }, () => {
  it('keeps every line when one write rotates several times within a millisecond', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-file-'));
    try {
      const file = new RotatingFile(join(dir, 'audit.log'), { maxSizeMb: 1, maxBackups: 0, maxAgeDays: 0, compress: false });
      await file.ensure();
      // Six lines of 600 KiB: one per file.
      const lines = Array.from({ length: 6 }, (_, i) => `${String(i).repeat(600 * 1024)}\n`);
      const buffer = Buffer.from(lines.join(''));
      const ends: number[] = [];
      let end = 0;
      for (const line of lines) ends.push((end += line.length));
      await file.write([{ buffer, ends }]);
      await file.close();
      const names = readdirSync(dir).sort();
      assert.equal(names.length, 6, names.join(', '));
      // Backups in name order, then the file itself: every line once, in order.
      const ordered = [...names.filter((n) => n !== 'audit.log'), 'audit.log'];
      assert.deepEqual(ordered.map((n) => readFileSync(join(dir, n), 'utf8')), lines);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the chunks that fit whole and together, and rotates within the first that does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-file-'));
    try {
      const file = new RotatingFile(join(dir, 'audit.log'), { maxSizeMb: 1, maxBackups: 0, maxAgeDays: 0, compress: false });
      await file.ensure();
      /** A chunk of lines of `kib` KiB each, made of `char`, with a few bytes after its last line that are no line. */
      const chunk = (char: string, ...kib: number[]) => {
        const lines = kib.map((k) => `${char.repeat(k * 1024 - 1)}\n`);
        const ends: number[] = [];
        let end = 0;
        for (const line of lines) ends.push((end += line.length));
        return { lines, chunk: { buffer: Buffer.from(`${lines.join('')}xyz`), ends } };
      };
      // 300 + 300 + 300 KiB fit in the first file; the fourth chunk's first line would pass 1 MiB.
      const parts = [chunk('a', 100, 200), chunk('b', 300), chunk('c', 150, 150), chunk('d', 150, 150), chunk('e')];
      await file.write(parts.map((p) => p.chunk));
      // And a later write, appended.
      const later = chunk('f', 10, 10);
      await file.write([later.chunk]);
      await file.close();
      const names = readdirSync(dir).sort();
      assert.equal(names.length, 2, names.join(', '));
      const [backup] = names.filter((n) => n !== 'audit.log');
      assert.equal(readFileSync(join(dir, backup!), 'utf8'), [...parts.slice(0, 3).flatMap((p) => p.lines)].join(''));
      assert.equal(readFileSync(join(dir, 'audit.log'), 'utf8'), [...parts[3]!.lines, ...later.lines].join(''));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
