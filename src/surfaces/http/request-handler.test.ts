import { describe, expect, it } from 'vitest';
import { arrivedOnLoopback } from './request-handler.js';

const on = (localAddress: string | undefined) => ({ socket: { localAddress } });

describe('arrivedOnLoopback', () => {
  it('accepts connections to 127.0.0.0/8 and ::1, in IPv6-mapped form too', () => {
    expect([on('127.0.0.1'), on('127.3.4.5'), on('::1'), on('::ffff:127.0.0.1')].map(arrivedOnLoopback)).toEqual([true, true, true, true]);
  });

  it('refuses connections to any other address, and a socket that no longer knows its address', () => {
    expect([on('10.0.0.7'), on('192.168.1.2'), on('::ffff:10.0.0.7'), on('fe80::1'), on(undefined)].map(arrivedOnLoopback)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
