// The lines an audit log queue wrote, as text: each write's chunks cut at their line ends.
import type { EncodedLines } from '../../src/audit/encoded-queue.js';

export function decodedLines(writes: EncodedLines[][]): string[] {
  const lines: string[] = [];
  for (const chunks of writes) {
    for (const { buffer, ends } of chunks) {
      let from = 0;
      for (const end of ends) {
        lines.push(buffer.toString('utf8', from, end));
        from = end;
      }
    }
  }
  return lines;
}
