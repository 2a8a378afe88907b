// Host names resolve through an injected resolver: nothing here touches DNS or the network.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { WebAddressPolicy } from './web-address-policy.js';

function resolverAnswering(...answers: LookupAddress[][]): (hostname: string) => Promise<LookupAddress[]> {
  let call = 0;
  return async () => answers[Math.min(call++, answers.length - 1)]!;
}

function lookup(policy: WebAddressPolicy, hostname: string, all: boolean): Promise<unknown> {
  return new Promise((resolve, reject) => {
    policy.lookup(hostname, { all }, (error, address, family) => (error ? reject(error) : resolve(all ? address : { address, family })));
  });
}

describe('WebAddressPolicy', () => {
  it('refuses a name when any of its addresses is not public', async () => {
    const policy = new WebAddressPolicy(
      [],
      resolverAnswering([
        { address: '8.8.8.8', family: 4 },
        { address: 'fd00:ec2::254', family: 6 },
      ]),
    );
    await expect(policy.addressesFor('mixed.example')).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: expect.stringContaining('mixed.example resolves to fd00:ec2::254, a cloud metadata address.'),
      data: { host: 'mixed.example', address: 'fd00:ec2::254', addressClass: 'metadata' },
    });
  });

  it('judges every resolution it hands to a connection, so a name that rebinds is caught on the next connect', async () => {
    const policy = new WebAddressPolicy(
      [],
      resolverAnswering([{ address: '8.8.4.4', family: 4 }], [{ address: '169.254.169.254', family: 4 }]),
    );
    expect(await lookup(policy, 'rebind.example', false)).toEqual({ address: '8.8.4.4', family: 4 });
    await expect(lookup(policy, 'rebind.example', true)).rejects.toMatchObject({ data: { addressClass: 'metadata' } });
  });

  it('hands every checked address to a connection that asks for all of them', async () => {
    const answer = [
      { address: '2606:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ];
    expect(await lookup(new WebAddressPolicy([], resolverAnswering(answer)), 'dual.example', true)).toEqual(answer);
  });

  it('lets allow_hosts entries through by exact name or *.suffix, and nothing else', async () => {
    const loopback = resolverAnswering([{ address: '127.0.0.1', family: 4 }]);
    const policy = new WebAddressPolicy(['Wiki.Internal', '*.corp.example', '[::1]'], loopback);
    expect(await policy.addressesFor('wiki.internal')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await policy.addressesFor('a.b.corp.example')).toHaveLength(1);
    expect(policy.allowsHost('wiki.internal.')).toBe(true);
    expect(policy.allowsHost('[::1]')).toBe(true);
    expect(policy.allowsHost('corp.example')).toBe(false);
    expect(policy.allowsHost('evilcorp.example')).toBe(false);
    await expect(policy.addressesFor('other.internal')).rejects.toMatchObject({ data: { addressClass: 'loopback' } });
    expect(() => policy.checkLiteral(new URL('http://[::1]/'))).not.toThrow();
    expect(() => policy.checkLiteral(new URL('http://0xa9fea9fe/latest/meta-data/'))).toThrow(
      /169\.254\.169\.254 is a cloud metadata address/,
    );
    expect(() => policy.checkLiteral(new URL('http://example.com/'))).not.toThrow();
  });
});
