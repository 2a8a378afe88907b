// The in-memory RunStore passes the shared contract.
import { runRunStoreContract } from '../../../../test/contract/run-store.contract.js';
import { MemoryRunStore } from './memory-run-store.js';

runRunStoreContract('memory', async ({ clock, newId }) => new MemoryRunStore({ clock, newId }));
