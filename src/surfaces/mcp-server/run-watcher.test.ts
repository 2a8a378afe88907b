// Resource subscriptions follow the store's change notices: a subscribed run's new event reaches its listeners, a change to
// another run does not, `weft://runs` hears about new runs, and the watcher stops listening to the store with the last subscriber.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunService } from '../../app/services/run-service.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import type { StoreChangeListener } from '../../runs/store/run-store.js';
import { RunWatcher } from './run-watcher.js';

/** A memory store that counts its watchers, so a test can see the watcher let go. */
class CountingStore extends MemoryRunStore {
  watching = 0;
  override watchChanges(listener: StoreChangeListener): () => void {
    const stop = super.watchChanges(listener);
    this.watching += 1;
    let stopped = false;
    return () => {
      if (!stopped) this.watching -= 1;
      stopped = true;
      stop();
    };
  }
}

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };

describe('RunWatcher', () => {
  let store: CountingStore;
  let watcher: RunWatcher;

  beforeEach(() => {
    store = new CountingStore();
    const service = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
    watcher = new RunWatcher(async () => service);
  });
  afterEach(async () => {
    watcher.close();
    await store.close();
  });

  /** A listener that collects what it hears into `list`; `next` resolves with the first uri. */
  function heard(list: string[]): { next: Promise<string>; listener: (uri: string) => void } {
    let resolveNext: (uri: string) => void = () => {};
    const next = new Promise<string>((resolve) => (resolveNext = resolve));
    return {
      next,
      listener: (uri) => {
        list.push(uri);
        resolveNext(uri);
      },
    };
  }

  it("tells a run's subscribers about its new events and not about other runs' changes", async () => {
    const [watched, other] = [await store.createRun(params), await store.createRun(params)];
    const uri = `weft://runs/${watched.id}`;
    const calls: string[] = [];
    const { next, listener } = heard(calls);
    const stop = await watcher.watch(uri, { kind: 'run', runId: watched.id }, listener);
    // The other run has a subscriber too, so its change is compared and reported: once that
    // arrived, the watched run's subscriber must still have heard nothing.
    const otherHeard = heard([]);
    const stopOther = await watcher.watch(`weft://runs/${other.id}`, { kind: 'run', runId: other.id }, otherHeard.listener);
    await store.appendEvents(other.id, [{ type: 'artifact-saved', payload: {} }]);
    await otherHeard.next;
    expect(calls).toEqual([]);
    await store.appendEvents(watched.id, [{ type: 'artifact-saved', payload: {} }]);
    expect(await next).toBe(uri);
    expect(calls).toEqual([uri]);
    stopOther();
    stop();
  });

  it('tells weft://runs subscribers about a new run', async () => {
    const calls: string[] = [];
    const { next, listener } = heard(calls);
    const stop = await watcher.watch('weft://runs', { kind: 'runs' }, listener);
    await store.createRun(params);
    expect(await next).toBe('weft://runs');
    stop();
  });

  it('watches the store only while someone is subscribed', async () => {
    const run = await store.createRun(params);
    expect(store.watching).toBe(0);
    const stopA = await watcher.watch(`weft://runs/${run.id}`, { kind: 'run', runId: run.id }, () => {});
    const stopB = await watcher.watch('weft://runs', { kind: 'runs' }, () => {});
    expect({ size: watcher.size, watching: store.watching }).toEqual({ size: 2, watching: 1 });
    stopA();
    expect(store.watching).toBe(1);
    stopB();
    expect({ size: watcher.size, watching: store.watching }).toEqual({ size: 0, watching: 0 });
  });
});
