/**
 * `weft mcp start` over stdio as a fuzz target: the built CLI as a real child process,
 * frames written raw to its stdin, answers read line by line from its stdout and matched
 * to requests by id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { WEFT_BIN } from '../helpers/run-cli.js';
import { LEGACY_VERSION, message, probe, type Era, type FuzzCase, type ToolSpec } from './jsonrpc-corpus.js';

export type RpcMessage = {
  id?: unknown;
  result?: { isError?: boolean; tools?: ToolSpec[] } & Record<string, unknown>;
  error?: { code: number; message: string };
  method?: string;
};

export interface CaseOutcome {
  /** Every answer that arrived while the case and its probe were in flight. */
  answers: RpcMessage[];
  /** Required ids (or HTTP requests) that got no answer before the deadline. */
  unanswered: string[];
  /** Whether the follow-up probe was answered. */
  alive: boolean;
}

export interface FuzzTarget {
  readonly name: string;
  readonly pid: number;
  tools(): Promise<ToolSpec[]>;
  run(fuzzCase: FuzzCase): Promise<CaseOutcome>;
  /** Whatever the server printed to stderr (for a failure's message). */
  stderr(): string;
  close(): Promise<void>;
}

/** How long an answer may take before the fuzzer calls it a hang (a slow shared machine, not a speed bound). */
export const HANG_MS = 20_000;

export class StdioTarget implements FuzzTarget {
  readonly name: string;
  readonly #child: ChildProcess;
  readonly #waiters = new Map<string, (answer: RpcMessage | undefined) => void>();
  #collected: RpcMessage[] = [];
  #buffer = '';
  #stderr = '';
  #probes = 0;

  private constructor(
    private readonly era: Era,
    child: ChildProcess,
  ) {
    this.name = `stdio/${era}`;
    this.#child = child;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.#read(chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (this.#stderr = (this.#stderr + chunk).slice(-20_000)));
    // A server that stops reading is a finding, not a reason for the fuzzer to crash on EPIPE.
    child.stdin!.on('error', () => undefined);
    child.once('exit', () => {
      for (const waiter of this.#waiters.values()) waiter(undefined);
      this.#waiters.clear();
    });
  }

  static async start(era: Era, cwd: string, storageDir: string): Promise<StdioTarget> {
    const child = spawn(process.execPath, [WEFT_BIN, '--storage-dir', storageDir, 'mcp', 'start'], {
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, WEFT_MCP_TOKEN: '' },
    });
    const target = new StdioTarget(era, child);
    if (era === 'legacy') {
      const answer = await target.#request(
        message(
          era,
          'initialize',
          { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'weft-fuzz', version: '1' } },
          'init',
        ),
      );
      if (!answer?.result) throw new Error(`initialize failed: ${JSON.stringify(answer)} ${target.#stderr}`);
      target.#write(Buffer.from(JSON.stringify(message(era, 'notifications/initialized', undefined)) + '\n'));
    }
    return target;
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  stderr(): string {
    return this.#stderr;
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    for (let at = this.#buffer.indexOf('\n'); at !== -1; at = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + 1);
      let parsed: RpcMessage;
      try {
        parsed = JSON.parse(line) as RpcMessage;
      } catch {
        parsed = { error: { code: 0, message: `unparseable line on stdout: ${line.slice(0, 200)}` } };
      }
      if (parsed.method !== undefined && parsed.id === undefined) continue; // a server notification
      this.#collected.push(parsed);
      const key = JSON.stringify(parsed.id ?? null);
      const waiter = this.#waiters.get(key);
      if (waiter) {
        this.#waiters.delete(key);
        waiter(parsed);
      }
    }
  }

  #write(bytes: Buffer): Promise<void> {
    return new Promise((resolve) => this.#child.stdin!.write(bytes, () => resolve()));
  }

  /** Resolves with the first answer for `id` seen from now on, or `undefined` after HANG_MS. */
  #answerFor(id: unknown): Promise<RpcMessage | undefined> {
    const key = JSON.stringify(id);
    const already = this.#collected.find((answer) => JSON.stringify(answer.id ?? null) === key);
    if (already) return Promise.resolve(already);
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(key);
        resolve(undefined);
      }, HANG_MS);
      this.#waiters.set(key, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
    });
  }

  async #request(value: Record<string, unknown>): Promise<RpcMessage | undefined> {
    const answer = this.#answerFor(value.id);
    await this.#write(Buffer.from(JSON.stringify(value) + '\n'));
    return answer;
  }

  async tools(): Promise<ToolSpec[]> {
    const answer = await this.#request(message(this.era, 'tools/list', {}, 'tools'));
    return answer?.result?.tools ?? [];
  }

  async run(fuzzCase: FuzzCase): Promise<CaseOutcome> {
    this.#collected = [];
    const waits = fuzzCase.mustAnswer.map((id) => this.#answerFor(id).then((answer) => (answer ? undefined : String(id))));
    for (const bytes of fuzzCase.frames) {
      if (fuzzCase.split) {
        const cut = Math.max(1, Math.floor(bytes.length / 2));
        await this.#write(bytes.subarray(0, cut));
        await this.#write(Buffer.concat([bytes.subarray(cut), Buffer.from('\n')]));
      } else await this.#write(Buffer.concat([bytes, Buffer.from('\n')]));
    }
    // Answers first, then the probe: an answer that only comes once more input arrives is a hang.
    const unanswered = (await Promise.all(waits)).filter((id): id is string => id !== undefined);
    this.#probes += 1;
    const probeId = `probe-${this.#probes}`;
    const alive = (await this.#request(JSON.parse(probe(this.era, probeId).toString()) as Record<string, unknown>)) !== undefined;
    const answers = this.#collected.filter((answer) => answer.id !== probeId);
    return { answers, unanswered, alive };
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.stdin!.end();
    this.#child.kill('SIGTERM');
    await exited;
  }
}
