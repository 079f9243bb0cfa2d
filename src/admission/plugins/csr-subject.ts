// The subject organizations (O=) of a PKCS#10 certificate request, as CertificateSigningRequest
// spec.request carries it: base64 (in JSON) of a PEM "CERTIFICATE REQUEST" block. A minimal DER
// reader: only the path to the subject is walked.

const SEQUENCE = 0x30;
const SET = 0x31;
const INTEGER = 0x02;
const OID = 0x06;
/** 2.5.4.10, organizationName. */
const ORGANIZATION_OID = Buffer.from([0x55, 0x04, 0x0a]);

interface Element {
  tag: number;
  /** Where the contents start and end in the buffer. */
  start: number;
  end: number;
}

/** Reads the element at `pos`; throws the way Go's asn1 package words a short or malformed input. */
function readElement(der: Buffer, pos: number, limit: number): Element {
  if (pos + 2 > limit) throw new Error('asn1: syntax error: data truncated');
  const tag = der[pos]!;
  let length = der[pos + 1]!;
  let start = pos + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > limit) throw new Error('asn1: syntax error: data truncated');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  if (start + length > limit) throw new Error('asn1: syntax error: data truncated');
  return { tag, start, end: start + length };
}

function expect(der: Buffer, pos: number, limit: number, tag: number): Element {
  const e = readElement(der, pos, limit);
  if (e.tag !== tag) throw new Error('asn1: structure error: tags don\'t match');
  return e;
}

function children(der: Buffer, parent: Element): Element[] {
  const out: Element[] = [];
  for (let pos = parent.start; pos < parent.end;) {
    const e = readElement(der, pos, parent.end);
    out.push(e);
    pos = e.end;
  }
  return out;
}

function decodeString(der: Buffer, e: Element): string {
  const bytes = der.subarray(e.start, e.end);
  switch (e.tag) {
    case 0x0c: return bytes.toString('utf8'); // UTF8String
    case 0x1e: return Buffer.from(bytes).swap16().toString('utf16le'); // BMPString (UTF-16BE)
    default: return bytes.toString('latin1'); // PrintableString, IA5String, T61String
  }
}

/** The DER bytes of the first PEM block, which must be a CERTIFICATE REQUEST. */
function pemBlock(pem: string): Buffer {
  const m = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (!m || m[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64');
}

/** The subject's O= values, in order. `request` is the base64 of the PEM text (as in JSON). */
export function csrOrganizations(request: string): string[] {
  const der = pemBlock(Buffer.from(request, 'base64').toString('latin1'));
  const outer = expect(der, 0, der.length, SEQUENCE);
  const info = expect(der, outer.start, outer.end, SEQUENCE);
  const version = expect(der, info.start, info.end, INTEGER);
  const subject = expect(der, version.end, info.end, SEQUENCE);
  const organizations: string[] = [];
  for (const rdn of children(der, subject)) {
    if (rdn.tag !== SET) throw new Error('asn1: structure error: tags don\'t match');
    for (const attribute of children(der, rdn)) {
      const [type, value] = children(der, attribute);
      if (!type || !value || type.tag !== OID) throw new Error('asn1: structure error: tags don\'t match');
      if (der.subarray(type.start, type.end).equals(ORGANIZATION_OID)) organizations.push(decodeString(der, value));
    }
  }
  return organizations;
}
