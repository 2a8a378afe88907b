/**
 * The soak's MCP clients: a 2025-era client over Streamable HTTP (a session) that subscribes
 * to each run's resource as it is created, re-reads the resource on every
 * `notifications/resources/updated` as a waiting client would, and unsubscribes once it has
 * learned the run finished; and polls `weft_run_get` / `weft_run_search` like an assistant
 * checking on its runs. A run the API saw finish that a client has not learned finished
 * within `NOTICE_GRACE_MS` is a lost notice: an error of the soak.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
const NOTICE_GRACE_MS = 15_000;

export interface McpSoakCounts {
  toolCalls: number;
  notices: number;
  reads: number;
  errors: string[];
}

export class McpSoakClient {
  readonly counts: McpSoakCounts = { toolCalls: 0, notices: 0, reads: 0, errors: [] };
  /** Runs subscribed to and not yet learned finished. */
  private readonly watching = new Set<string>();
  /** Runs the API saw finish, with when, that this client has not learned finished yet. */
  private readonly awaited = new Map<string, number>();
  private readonly learned = new Set<string>();

  private constructor(
    readonly label: string,
    private readonly client: Client,
  ) {}

  static async connect(label: string, url: string, token: string): Promise<McpSoakClient> {
    const client = new Client({ name: `soak-${label}`, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    const soakClient = new McpSoakClient(label, client);
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      soakClient.counts.notices += 1;
      void soakClient.reread(notification.params.uri);
    });
    return soakClient;
  }

  async watch(runId: string): Promise<void> {
    try {
      this.watching.add(runId);
      await this.client.subscribeResource({ uri: `weft://runs/${runId}` });
    } catch (error) {
      this.fail(`subscribe ${runId}: ${String(error)}`);
    }
  }

  /** The API saw `runId` finish: this client must learn it too (from a notice), soon. */
  expectFinished(runId: string): void {
    if (!this.learned.delete(runId)) this.awaited.set(runId, Date.now());
  }

  /** One polling round: the runs in flight read with weft_run_get, the list with weft_run_search. */
  async poll(inFlight: readonly string[]): Promise<void> {
    for (const runId of inFlight) await this.tool('weft_run_get', { run_id: runId });
    await this.tool('weft_run_search', { limit: 20 });
  }

  /** Errors for runs whose finish this client never heard of within the grace period. */
  lostNotices(now = Date.now(), grace = NOTICE_GRACE_MS): string[] {
    const lost: string[] = [];
    for (const [runId, since] of this.awaited) {
      if (now - since < grace) continue;
      this.awaited.delete(runId);
      lost.push(`${this.label}: run ${runId} finished but no resource notice told this client within ${grace / 1000} s`);
    }
    return lost;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async reread(uri: string): Promise<void> {
    const runId = uri.slice('weft://runs/'.length);
    if (!this.watching.has(runId)) return;
    try {
      const read = await this.client.readResource({ uri });
      this.counts.reads += 1;
      const first = read.contents[0];
      const body = JSON.parse(first && 'text' in first ? first.text : '{}') as { run?: { status?: string } };
      if (!TERMINAL.has(body.run?.status ?? '')) return;
      this.watching.delete(runId);
      if (!this.awaited.delete(runId)) this.learned.add(runId);
      await this.client.unsubscribeResource({ uri });
    } catch (error) {
      this.fail(`read ${uri}: ${String(error)}`);
    }
  }

  private async tool(name: string, args: Record<string, unknown>): Promise<void> {
    try {
      const result = await this.client.callTool({ name, arguments: args });
      this.counts.toolCalls += 1;
      if (result.isError === true) this.fail(`${name}: ${JSON.stringify(result.content).slice(0, 200)}`);
    } catch (error) {
      this.fail(`${name}: ${String(error)}`);
    }
  }

  private fail(message: string): void {
    this.counts.errors.push(`${this.label}: ${message}`);
  }
}
