// The service allocators on their own: address math for IPv4 and IPv6, which addresses a range
// gives, exhaustion of small ranges, the flags, node ports, and how a claim settles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AllocationClaim } from '../../src/registry/allocators/claim.js';
import {
  ClusterIpRange, IpAllocatedError, IpNotInRangeError, parseServiceClusterIpRanges, RangeFullError,
} from '../../src/registry/allocators/cluster-ip.js';
import { cidrContains, cidrSize, formatCidr, formatIp, parseCidr, parseIp } from '../../src/registry/allocators/ip-range.js';
import { NodePortRange, parsePortRange, PortAllocatedError, PortNotInRangeError } from '../../src/registry/allocators/node-port.js';
import { SlotPool } from '../../src/registry/allocators/slot-pool.js';

const range = (text: string) => new ClusterIpRange(parseCidr(text)!);

describe('IP addresses', () => {
  it('parses IPv4, with leading zeros as the reference does', () => {
    assert.deepEqual(parseIp('10.96.0.1'), { family: 'IPv4', value: 0x0a600001n });
    assert.deepEqual(parseIp('010.096.000.001'), { family: 'IPv4', value: 0x0a600001n });
    for (const bad of ['10.96.0', '10.96.0.256', '10.96.0.1.2', '10.96.0.x', '', ' 10.96.0.1']) assert.equal(parseIp(bad), undefined, bad);
  });

  it('parses IPv6: compression, embedded IPv4, IPv4-mapped addresses are IPv4', () => {
    assert.deepEqual(parseIp('fd00::1'), { family: 'IPv6', value: (0xfd00n << 112n) | 1n });
    assert.deepEqual(parseIp('::'), { family: 'IPv6', value: 0n });
    assert.deepEqual(parseIp('::1.2.3.4'), { family: 'IPv6', value: 0x01020304n });
    assert.deepEqual(parseIp('::ffff:10.96.0.1'), { family: 'IPv4', value: 0x0a600001n });
    assert.equal(parseIp('1:2:3:4:5:6:7:8')?.family, 'IPv6');
    assert.equal(parseIp('1:2:3:4:5:6:7::')?.family, 'IPv6');
    for (const bad of ['1:2:3:4:5:6:7:8::', '1::2::3', 'fd00::12345', '1:2:3:4:5:6:7', 'fd00::g']) assert.equal(parseIp(bad), undefined, bad);
  });

  it('prints addresses as Go does (RFC 5952 for IPv6)', () => {
    const v6 = (text: string) => formatIp(parseIp(text)!);
    assert.equal(v6('FD00:0:0:0:0:0:0:1'), 'fd00::1');
    assert.equal(v6('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1'); // the first of equal runs
    assert.equal(v6('2001:db8:0:1:1:1:1:1'), '2001:db8:0:1:1:1:1:1'); // one zero group stays
    assert.equal(v6('0:0:0:0:0:0:0:0'), '::');
    assert.equal(v6('1:0:0:2:0:0:0:3'), '1:0:0:2::3'); // the longest run
    assert.equal(formatIp(parseIp('010.096.000.010')!), '10.96.0.10');
  });

  it('reads CIDRs with host bits cleared and prints them canonically', () => {
    assert.equal(formatCidr(parseCidr('10.96.3.4/12')!), '10.96.0.0/12');
    assert.equal(formatCidr(parseCidr('FD00:10:96::5/108')!), 'fd00:10:96::/108');
    assert.equal(cidrSize(parseCidr('10.96.0.0/16')!), 65536n);
    assert.ok(cidrContains(parseCidr('10.96.0.0/12')!, parseIp('10.111.255.255')!));
    assert.ok(!cidrContains(parseCidr('10.96.0.0/12')!, parseIp('10.112.0.0')!));
    assert.ok(!cidrContains(parseCidr('10.96.0.0/12')!, parseIp('fd00::1')!));
    for (const bad of ['10.96.0.0', '10.96.0.0/33', 'fd00::/129', '10.96.0.0/x']) assert.equal(parseCidr(bad), undefined, bad);
  });
});

describe('ClusterIP ranges', () => {
  it('never gives the network or broadcast address; the first is the kubernetes Service\'s', () => {
    const r = range('10.96.0.0/29');
    assert.equal(r.size, 6);
    assert.equal(r.firstAddress(), '10.96.0.1');
    assert.throws(() => r.allocate('10.96.0.0'), new IpNotInRangeError('10.96.0.0', '10.96.0.0/29'));
    assert.throws(() => r.allocate('10.96.0.7'), /the provided IP \(10\.96\.0\.7\) is not in the valid range\. The range of valid IPs is 10\.96\.0\.0\/29/);
    assert.throws(() => r.allocate('10.96.1.1'), IpNotInRangeError);
    // Random picks leave the first address alone: 5 of the 6 usable ones.
    const got = new Set<string>();
    for (let i = 0; i < 5; i++) got.add(r.allocateNext());
    assert.equal(got.size, 5);
    assert.ok(!got.has('10.96.0.1'));
    assert.throws(() => r.allocateNext(), new RangeFullError());
    assert.throws(() => r.allocateNext(), /^Error: range is full$/);
    // Asked for by number, it is given.
    r.allocate('10.96.0.1');
    assert.throws(() => r.allocate('10.96.0.1'), new IpAllocatedError());
    r.release('10.96.0.3');
    assert.ok(!r.has('10.96.0.3'));
    assert.equal(r.allocateNext(), '10.96.0.3');
  });

  it('prefers the upper part of a range for random picks (static band)', () => {
    const r = range('10.96.0.0/16');
    for (let i = 0; i < 200; i++) {
      const ip = parseIp(r.allocateNext())!.value - parseIp('10.96.0.0')!.value;
      assert.ok(ip > 256n, `${ip} in the static band`);
    }
    // Small ranges: a band of 16 from /27, none at /28 and below.
    const small = range('10.0.0.0/27');
    const picks = Array.from({ length: 14 }, () => Number(parseIp(small.allocateNext())!.value & 0xffn));
    assert.ok(picks.every((n) => n >= 17), picks.join(','));
    assert.equal(range('10.0.0.0/28').size, 14);
  });

  it('IPv6: no broadcast, at most 65536 addresses', () => {
    const r = range('fd00::/120');
    assert.equal(r.size, 255);
    assert.equal(r.firstAddress(), 'fd00::1');
    r.allocate('fd00::ff');
    assert.throws(() => r.allocate('fd00::'), /the provided IP \(fd00::\) is not in the valid range\. The range of valid IPs is fd00::\/120/);
    const big = range('fd00:10:96::/108');
    assert.equal(big.size, 65535);
    big.allocate('fd00:10:96::ffff');
    assert.throws(() => big.allocate('fd00:10:96::1:0'), IpNotInRangeError);
    assert.match(big.allocateNext(), /^fd00:10:96::/);
  });

  it('dry runs take nothing: a number is only checked against the range, a random pick is the network address', () => {
    const r = range('10.96.0.0/24');
    r.allocate('10.96.0.9');
    r.allocate('10.96.0.9', true);
    assert.throws(() => r.allocate('10.96.1.9', true), IpNotInRangeError);
    assert.equal(r.allocateNext(true), '10.96.0.0');
    assert.equal(r.used, 1);
  });

  it('reads --service-cluster-ip-range as the reference does', () => {
    assert.deepEqual(parseServiceClusterIpRanges('10.96.0.0/12').map((r) => r.text), ['10.96.0.0/12']);
    assert.deepEqual(parseServiceClusterIpRanges('fd00::/108, 10.0.0.0/16').map((r) => r.family), ['IPv6', 'IPv4']);
    assert.throws(() => parseServiceClusterIpRanges('10.0.0.0/11'), /specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12/);
    assert.throws(() => parseServiceClusterIpRanges('10.0.0.0/16,fd00::/64'), /specified --service-cluster-ip-range\[1\] is too large; for 128-bit addresses, the mask must be >= 108/);
    assert.throws(() => parseServiceClusterIpRanges('10.0.0.0/16,10.1.0.0/16'), /must be of different IP family/);
    assert.throws(() => parseServiceClusterIpRanges('10.0.0.0/16,fd00::/112,fd01::/112'), /must not contain more than two entries/);
    assert.throws(() => parseServiceClusterIpRanges('ten'), /invalid CIDR/);
  });
});

describe('node ports', () => {
  it('reads --service-node-port-range in its three notations', () => {
    assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 });
    assert.deepEqual(parsePortRange('30000+10'), { base: 30000, size: 11 });
    assert.deepEqual(parsePortRange('30000'), { base: 30000, size: 1 });
    assert.throws(() => parsePortRange('32767-30000'), /end port cannot be less than start port/);
    assert.throws(() => parsePortRange('30000-70000'), /cannot be greater than 65535/);
    assert.throws(() => parsePortRange('a-b'), /unable to parse port range/);
  });

  it('allocates within the range, refuses taken and outside ports, and fills up', () => {
    const r = new NodePortRange(parsePortRange('30000-30002'));
    assert.equal(r.text, '30000-30002');
    r.allocate(30001);
    assert.throws(() => r.allocate(30001), new PortAllocatedError());
    assert.throws(() => r.allocate(8080), new PortNotInRangeError('30000-30002'));
    assert.throws(() => r.allocate(8080), /^Error: provided port is not in the valid range\. The range of valid ports is 30000-30002$/);
    const rest = [r.allocateNext(), r.allocateNext()].sort();
    assert.deepEqual(rest, [30000, 30002]);
    assert.throws(() => r.allocateNext(), RangeFullError);
    r.release(30000);
    assert.equal(r.allocateNext(), 30000);
  });
});

describe('slot pools and claims', () => {
  it('a reserved slot is never picked at random, the static band only when the rest is full', () => {
    const pool = new SlotPool(4, { staticBand: 2, reserved: 0 });
    const first = [pool.takeRandom(), pool.takeRandom()].sort();
    assert.deepEqual(first, [2, 3]);
    assert.equal(pool.takeRandom(), 1);
    assert.equal(pool.takeRandom(), undefined);
    assert.ok(pool.take(0));
    assert.ok(!pool.take(0));
  });

  it('a claim gives back what it took unless committed, and releases on commit only', () => {
    const log: string[] = [];
    const reverted = new AllocationClaim(false);
    reverted.taken(() => log.push('give back a'));
    reverted.releaseOnCommit(() => log.push('release old'));
    reverted.revert();
    reverted.commit(); // settled already
    assert.deepEqual(log, ['give back a']);
    log.length = 0;
    const committed = new AllocationClaim(false);
    committed.taken(() => log.push('give back b'));
    committed.releaseOnCommit(() => log.push('release old'));
    committed.commit();
    committed.revert();
    assert.deepEqual(log, ['release old']);
    log.length = 0;
    const dry = new AllocationClaim(true);
    dry.taken(() => log.push('x'));
    dry.releaseOnCommit(() => log.push('y'));
    dry.commit();
    assert.deepEqual(log, []);
  });
});
