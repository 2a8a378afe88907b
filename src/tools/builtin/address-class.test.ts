// Literals only: nothing here connects anywhere.
import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIPv4, parseIPv6 } from './address-class.js';

describe('classifyAddress', () => {
  it('classifies every spelling of a loopback address as loopback', () => {
    const spellings = [
      '127.0.0.1',
      '127.1',
      '127.0.0.1.',
      '2130706433',
      '0x7f000001',
      '0x7F.1',
      '0177.0.0.1',
      '0177.0.0.01',
      '127.255.255.254',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '[::ffff:7f00:1]',
      '::127.0.0.1',
      '64:ff9b::127.0.0.1',
      '2002:7f00:1::',
    ];
    expect(Object.fromEntries(spellings.map((text) => [text, classifyAddress(text)]))).toEqual(
      Object.fromEntries(spellings.map((text) => [text, 'loopback'])),
    );
  });

  it('names the metadata endpoints in any spelling, before the network they sit in', () => {
    for (const text of [
      '169.254.169.254',
      '2852039166',
      '0xa9fea9fe',
      '0251.0376.0251.0376',
      '169.254.43518',
      '::ffff:169.254.169.254',
      '[::ffff:a9fe:a9fe]',
      'fd00:ec2::254',
      '100.100.100.200',
      '168.63.129.16',
    ]) {
      expect(classifyAddress(text), text).toBe('metadata');
    }
  });

  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['0xc0a80101', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:169.254.0.1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
  ])('%s is %s', (text, kind) => {
    expect(classifyAddress(text)).toBe(kind);
  });

  it('leaves public addresses public, including the neighbours of blocked ranges', () => {
    for (const text of [
      '8.8.8.8',
      '1.1.1.1',
      '172.15.255.255',
      '172.32.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '169.253.255.255',
      '223.255.255.255',
      '11.0.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '2002:808:808::',
    ]) {
      expect(classifyAddress(text), text).toBe('public');
    }
  });

  it('returns undefined for host names and malformed literals', () => {
    for (const text of [
      'localhost',
      'example.com',
      '1.2.3.4.5',
      '256.0.0.1',
      '1.2.3.0x100',
      '08.0.0.1',
      '4294967296',
      '::ffff:1.2.3',
      '[::1',
      'fe80:::1',
      '',
    ]) {
      expect(classifyAddress(text), text).toBeUndefined();
    }
  });
});

describe('address parsing', () => {
  it('reads inet_aton IPv4 spellings and expands IPv6', () => {
    expect(parseIPv4('1.2.3')).toEqual([1, 2, 0, 3]);
    expect(parseIPv4('1.0x10203')).toEqual([1, 1, 2, 3]);
    expect(parseIPv4('0x')).toEqual([0, 0, 0, 0]);
    expect(parseIPv6('1:2::ff')).toEqual([0, 1, 0, 2, ...Array<number>(10).fill(0), 0, 0xff]);
    expect(parseIPv6('::ffff:1.2.3.4')?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
  });
});
