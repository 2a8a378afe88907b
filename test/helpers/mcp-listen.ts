/**
 * The `subscriptions/listen` scenario both transports run with the SDK's own 2026-era
 * client: runs change in another process (`weft cancel`), each change reaches the open
 * subscription listing its URI, a closed subscription gets nothing more, and bad URIs
 * are refused before anything is acknowledged.
 */
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { createRun, type Workspace } from './mcp-server-kit.js';
import { runCli } from './run-cli.js';

export const MODERN_CLIENT_OPTIONS = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

interface Update {
  uri: string;
  subscription: unknown;
}

export async function checkListenSubscriptions(client: Client, ws: Workspace): Promise<void> {
  const runs = await Promise.all([1, 2, 3].map(() => createRun(client, { workflow: 'quick.toml', start: false })));
  const [a, b, c] = runs.map((run) => `weft://runs/${run.id}`) as [string, string, string];
  const updates: Update[] = [];
  const waiters = new Map<string, () => void>();
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push({ uri: notification.params.uri, subscription: notification.params._meta?.[SUBSCRIPTION_ID] });
    waiters.get(notification.params.uri)?.();
  });
  /** Cancels the run behind `uri` from another process and resolves once the update for it arrives. */
  const changeElsewhere = async (uri: string): Promise<void> => {
    const arrived = new Promise<void>((resolve) => waiters.set(uri, resolve));
    const cancelled = await runCli(['--storage-dir', ws.storageDir, 'cancel', uri.slice('weft://runs/'.length)], { cwd: ws.dir });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    await arrived;
  };

  const first: McpSubscription = await client.listen({ resourceSubscriptions: [a, b] });
  expect(first.honoredFilter).toEqual({ resourceSubscriptions: [a, b] });
  await changeElsewhere(a);
  await first.close();
  expect(await first.closed).toBe('local');

  const second = await client.listen({ resourceSubscriptions: [b, c] });
  await changeElsewhere(b);
  await changeElsewhere(c);
  await second.close();
  const [firstId, secondId] = [updates[0]?.subscription, updates[1]?.subscription];
  expect(firstId).not.toEqual(secondId);
  // b changed after the first subscription closed: only the second one heard of it.
  expect(updates).toEqual([
    { uri: a, subscription: firstId },
    { uri: b, subscription: secondId },
    { uri: c, subscription: secondId },
  ]);

  await expect(client.listen({ resourceSubscriptions: ['weft://runs/..%2F..%2Fsecrets'] })).rejects.toThrow(/INVALID_ID/);
  await expect(client.listen({ resourceSubscriptions: [a, 'file:///etc/passwd'] })).rejects.toThrow(
    /Unknown resource file:\/\/\/etc\/passwd/,
  );
  await expect(client.listen({ resourceSubscriptions: ['weft://runs/01JD3Q7Y8ZK3V4W5X6Y7Z8A9BC'] })).rejects.toThrow(/RUN_NOT_FOUND/);
}
