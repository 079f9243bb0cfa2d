// IP addresses and CIDR blocks as BigInt, IPv4 and IPv6 alike: parsing as the reference's sloppy
// parser does (IPv4 octets may carry leading zeros; "::ffff:a.b.c.d" is IPv4), and the text Go
// prints for them (RFC 5952 for IPv6).

export type IpFamily = 'IPv4' | 'IPv6';

export interface IpAddress {
  family: IpFamily;
  value: bigint;
}

export interface Cidr {
  family: IpFamily;
  /** The block's first address (host bits cleared). */
  network: bigint;
  prefix: number;
}

const BITS: Record<IpFamily, number> = { IPv4: 32, IPv6: 128 };

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseGroups(text: string): bigint[] | undefined {
  if (text === '') return [];
  const groups: bigint[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined;
      groups.push(BigInt(`0x${part}`));
    }
  }
  return groups;
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0]!);
  const tail = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // "::" stands for at least one group of zeros.
  const zeros = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (halves.length === 2 ? zeros < 1 : head.length !== 8) return undefined;
  let value = 0n;
  for (const g of [...head, ...Array<bigint>(zeros).fill(0n), ...tail]) value = (value << 16n) | g;
  return value;
}

export function parseIp(text: string): IpAddress | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    if (value === undefined) return undefined;
    if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value & 0xffffffffn };
    return { family: 'IPv6', value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { family: 'IPv4', value };
}

export function familyOfIp(text: string): IpFamily | undefined {
  return parseIp(text)?.family;
}

export function formatIp(ip: IpAddress): string {
  if (ip.family === 'IPv4') {
    const v = ip.value;
    return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  }
  // IPv4-mapped addresses print as IPv4, as Go prints them.
  if (ip.value >> 32n === 0xffffn) return formatIp({ family: 'IPv4', value: ip.value & 0xffffffffn });
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups becomes "::" (the first, on a tie).
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]) => list.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** The canonical text of an address given as text (as given when it does not parse). */
export function canonicalIp(text: string): string {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : text;
}

export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  // A CIDR's address keeps its notation: "::ffff:10.0.0.0/104" is an IPv6 block.
  const family: IpFamily = address.includes(':') ? 'IPv6' : 'IPv4';
  const value = family === 'IPv6' ? parseIpv6(address) : parseIpv4(address);
  if (value === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const bits = BITS[family];
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  return { family, network: (value >> hostBits) << hostBits, prefix };
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIp({ family: cidr.family, value: cidr.network })}/${cidr.prefix}`;
}

/** How many addresses the block holds. */
export function cidrSize(cidr: Cidr): bigint {
  return 1n << BigInt(BITS[cidr.family] - cidr.prefix);
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (ip.family !== cidr.family) return false;
  const hostBits = BigInt(BITS[cidr.family] - cidr.prefix);
  return ip.value >> hostBits === cidr.network >> hostBits;
}
