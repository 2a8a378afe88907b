/** The sandbox seam and the `os` provider: what the layers above import. */
export * from './sandbox-rules.js';
export * from './sandbox-provider.js';
export { bubblewrapProvider, bubblewrapRequirements, SANDBOX_PROXY_PORT } from './bubblewrap.js';
export { hostAllowed } from './network-proxy.js';
export { violationsInStderr } from './sandbox-violations.js';
