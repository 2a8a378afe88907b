/**
 * Which addresses web_fetch may connect to: public ones, and any address of a host named
 * in `[tools.web_fetch] allow_hosts`. The check runs on the addresses a name resolves to,
 * inside the connection's own `lookup`, so the address checked is the address connected
 * to and a DNS answer that changes between a check and the connect cannot slip through.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { WeftError } from '../../core/errors.js';
import { classifyAddress, type AddressClass } from './address-class.js';

/** Every address a host name resolves to. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

const resolveWithDns: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const DESCRIPTIONS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  shared: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  unspecified: 'the unspecified address',
  reserved: 'a reserved, non-public address',
};

function bare(hostname: string): string {
  const lower = hostname.toLowerCase().replace(/\.$/, '');
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

export class WebAddressPolicy {
  readonly #allowHosts: readonly string[];
  readonly #resolve: ResolveHost;

  /**
   * @param allowHosts host names or IP literals reached whatever their addresses; `*.example.com` covers its subdomains.
   * @example new WebAddressPolicy(['127.0.0.1', 'wiki.internal'])
   */
  constructor(allowHosts: readonly string[] = [], resolve: ResolveHost = resolveWithDns) {
    this.#allowHosts = allowHosts.map(bare);
    this.#resolve = resolve;
  }

  /** Whether `allow_hosts` names this host (then any address it has is fine). */
  allowsHost(hostname: string): boolean {
    const host = bare(hostname);
    return this.#allowHosts.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry));
  }

  /** Refuses a URL whose host is an IP literal that is not public (such hosts are connected without a lookup). */
  checkLiteral(url: URL): void {
    const kind = classifyAddress(url.hostname);
    if (kind !== undefined && kind !== 'public' && !this.allowsHost(url.hostname)) throw refusal(url.hostname, url.hostname, kind);
  }

  /** The addresses to connect to for `hostname`: refused when any of them is not public, unless the host is allowed. */
  async addressesFor(hostname: string): Promise<LookupAddress[]> {
    const addresses = await this.#resolve(hostname);
    if (this.allowsHost(hostname)) return addresses;
    for (const { address } of addresses) {
      const kind = classifyAddress(address) ?? 'reserved';
      if (kind !== 'public') throw refusal(hostname, address, kind);
    }
    return addresses;
  }

  /** A `lookup` for `http.request` that resolves through `addressesFor`. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.addressesFor(hostname).then(
      (addresses) => {
        const first = addresses[0];
        if (options.all) callback(null, addresses);
        else if (first) callback(null, first.address, first.family);
        else callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function refusal(hostname: string, address: string, kind: Exclude<AddressClass, 'public'>): WeftError {
  const resolved = bare(hostname) === bare(address) ? `${address} is` : `${hostname} resolves to ${address},`;
  return new WeftError(
    'FETCH_FAILED',
    `Refusing to fetch from ${hostname}: ${resolved} ${DESCRIPTIONS[kind]}. web_fetch reaches public addresses only; ` +
      `to allow this host, add "${bare(hostname)}" to allow_hosts under [tools.web_fetch] in .weft/settings.toml.`,
    { data: { host: hostname, address, addressClass: kind } },
  );
}
