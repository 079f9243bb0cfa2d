// The `data` of a RangeAllocation as the reference stores it: the allocator's bitmap as one big
// integer (bit k set: offset k taken) in the bytes Go's big.Int.Bytes() gives — big-endian, no
// leading zero bytes, empty when nothing is taken.

export function encodeRangeBitmap(slots: Iterable<number>): Buffer {
  let highest = -1;
  const list: number[] = [];
  for (const slot of slots) {
    list.push(slot);
    if (slot > highest) highest = slot;
  }
  if (highest < 0) return Buffer.alloc(0);
  const bytes = Buffer.alloc((highest >> 3) + 1);
  const last = bytes.length - 1;
  for (const slot of list) bytes[last - (slot >> 3)]! |= 1 << (slot & 7);
  return bytes;
}

export function decodeRangeBitmap(bytes: Uint8Array): Set<number> {
  const slots = new Set<number>();
  const last = bytes.length - 1;
  for (let i = last; i >= 0; i--) {
    const byte = bytes[i]!;
    if (byte === 0) continue;
    const base = (last - i) * 8;
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) slots.add(base + bit);
  }
  return slots;
}
