// A list body as the reference serves it: {"kind":"XList","apiVersion":…,"metadata":…,"items":[…]}
// built by concatenating the items' stored bytes, each without its kind and apiVersion.

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
const OPEN = Buffer.from('{');

/** `{"kind":K,"apiVersion":V,` — the prefix every stored object of that kind and version starts with. */
export function typePrefix(kind: string, apiVersion: string): Buffer {
  return Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},`);
}

/** An object's bytes without kind and apiVersion (a cheap slice when they lead, as stored objects do). */
export function withoutTypeMeta(bytes: Buffer, prefix: Buffer): Buffer {
  if (bytes.subarray(0, prefix.length).equals(prefix)) return Buffer.concat([OPEN, bytes.subarray(prefix.length)]);
  const obj = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  delete obj['kind'];
  delete obj['apiVersion'];
  return Buffer.from(JSON.stringify(obj));
}

export function encodeList(listKind: string, apiVersion: string, metadata: Record<string, unknown>, items: readonly Buffer[], itemKind: string): Buffer {
  const prefix = typePrefix(itemKind, apiVersion);
  const chunks: Buffer[] = [Buffer.from(`{"kind":${JSON.stringify(listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`)];
  items.forEach((item, i) => {
    if (i > 0) chunks.push(COMMA);
    chunks.push(withoutTypeMeta(item, prefix));
  });
  chunks.push(CLOSE);
  return Buffer.concat(chunks);
}
