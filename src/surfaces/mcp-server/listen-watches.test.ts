// subscriptions/listen streams share one store watch per URI: a change is published once however many streams list it,
// the watch ends with the last stream listing it, and a bad URI refuses the whole request with nothing left watched.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunService } from '../../app/services/run-service.js';
import { MemoryRunStore } from '../../runs/store/memory/memory-run-store.js';
import { listenRefusal, listenRequest, ListenWatches } from './listen-watches.js';
import { RunWatcher } from './run-watcher.js';

const params = { workflow: 'build', workflowPath: 'build.toml', cwd: '/work' };

describe('ListenWatches', () => {
  let store: MemoryRunStore;
  let watcher: RunWatcher;
  let listens: ListenWatches;
  let published: string[];
  /** Resolves once `uri` is published next. */
  let until: (uri: string) => Promise<void>;

  beforeEach(() => {
    store = new MemoryRunStore();
    const service = new RunService({ store, clock: Date.now, wakeRunners: () => {} });
    watcher = new RunWatcher(async () => service);
    published = [];
    const waiting = new Map<string, () => void>();
    until = (uri) => new Promise<void>((resolve) => waiting.set(uri, resolve));
    listens = new ListenWatches({ runs: async () => service, cwd: '/work', version: '0', watcher }, (uri) => {
      published.push(uri);
      waiting.get(uri)?.();
    });
  });
  afterEach(async () => {
    watcher.close();
    await store.close();
  });

  it('publishes a change once for every stream listing its URI, and stops watching with the last stream', async () => {
    const run = await store.createRun(params);
    const uri = `weft://runs/${run.id}`;
    const releaseFirst = await listens.open([uri, uri]);
    const releaseSecond = await listens.open([uri, 'weft://runs']);
    expect({ uris: listens.size, watches: watcher.size }).toEqual({ uris: 2, watches: 2 });

    let change = until(uri);
    await store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }]);
    await change;
    releaseFirst();
    releaseFirst();
    expect({ uris: listens.size, watches: watcher.size }).toEqual({ uris: 2, watches: 2 });
    change = until(uri);
    await store.appendEvents(run.id, [{ type: 'artifact-saved', payload: {} }]);
    await change;
    expect(published.filter((one) => one === uri)).toEqual([uri, uri]);

    releaseSecond();
    expect({ uris: listens.size, watches: watcher.size }).toEqual({ uris: 0, watches: 0 });
  });

  it('refuses a request with a bad URI and watches none of its URIs', async () => {
    const run = await store.createRun(params);
    await expect(listens.open([`weft://runs/${run.id}`, 'weft://runs/..%2Fsecrets'])).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^INVALID_ID: /),
    });
    await expect(listens.open(['weft://runs/01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC'])).rejects.toMatchObject({
      message: expect.stringMatching(/^RUN_NOT_FOUND: /),
    });
    await expect(listens.open(['https://example.com/'])).rejects.toThrow(
      /Unknown resource https:\/\/example.com\/: weft serves weft:\/\/runs/,
    );
    expect({ uris: listens.size, watches: watcher.size }).toEqual({ uris: 0, watches: 0 });
  });

  it('reads the id and URIs of a listen request, and answers a refusal with that id', () => {
    const listen = {
      jsonrpc: '2.0',
      id: 'listen:1',
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: ['weft://runs'] } },
    };
    expect(listenRequest(listen)).toEqual({ id: 'listen:1', uris: ['weft://runs'] });
    expect(listenRequest({ ...listen, params: { notifications: { toolsListChanged: true } } })).toEqual({ id: 'listen:1', uris: [] });
    expect(listenRequest({ ...listen, params: { notifications: { resourceSubscriptions: [7] } } })).toBeUndefined();
    expect(listenRequest({ ...listen, method: 'tools/list' })).toBeUndefined();
    expect(listenRefusal(3, new Error('boom'))).toMatchObject({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32603, data: { code: 'INTERNAL' } },
    });
  });
});
