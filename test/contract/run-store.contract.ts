/**
 * The RunStore contract suite: every implementation (SQLite, in-memory, later PostgreSQL)
 * runs it and must pass it unchanged.
 *
 * @example runRunStoreContract('memory', async ({ clock, newId }) => new MemoryRunStore({ clock, newId }));
 */
import { describe } from 'vitest';
import { changesContract } from './run-store-changes.contract.js';
import { concurrencyContract } from './run-store-concurrency.contract.js';
import { eventsContract } from './run-store-events.contract.js';
import { useContractStore, type MakeRunStore } from './run-store-kit.js';
import { leasesContract } from './run-store-leases.contract.js';
import { runsContract } from './run-store-runs.contract.js';
import { searchContract } from './run-store-search.contract.js';
import { secretsContract } from './run-store-secrets.contract.js';

export type { MakeRunStore } from './run-store-kit.js';

export function runRunStoreContract(name: string, makeStore: MakeRunStore): void {
  describe(`RunStore contract: ${name}`, () => {
    const context = useContractStore(makeStore);
    runsContract(context);
    searchContract(context);
    eventsContract(context);
    leasesContract(context);
    concurrencyContract(context);
    changesContract(context);
    secretsContract(context);
  });
}
