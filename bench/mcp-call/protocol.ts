/**
 * bench/mcp-call: the measurement protocol every phase runs, identically, against its
 * client driver — startup and memory with 10 slow-handshake servers, then calls against
 * one server: sequential latency/throughput, 32 in flight, 1 MiB payloads. Calls start
 * after a warm-up; every answer is checked, so a broken client cannot look fast.
 */
import { MIB, cpuMicrosSince, measure, now, rssMiB, sleep } from '../lib/measure.js';
import type { Caller, ClientDriver, EchoServer } from './driver.js';
import type { CallerRounds, PhaseSettings, Round, StartupRound } from './results.js';

const MESSAGE = 'hello from bench/mcp-call';
const ECHO_ARGS = { message: MESSAGE };

function checkEcho(text: string): void {
  if (text !== MESSAGE) throw new Error(`echo answered ${JSON.stringify(text.slice(0, 80))}`);
}

export interface StartupOptions {
  script: string;
  /** Also connect the servers one after another (the bare v2 reference). */
  sequential: boolean;
}

async function timeToReady(
  driver: ClientDriver,
  servers: readonly EchoServer[],
  order: 'parallel' | 'sequential',
  whileConnected?: () => Promise<void>,
): Promise<number> {
  const started = now();
  const connection = await driver.connect(servers, order);
  const readyMs = now() - started;
  await whileConnected?.();
  await checkEveryServer(connection.callers[0], servers.length);
  await connection.close();
  return readyMs;
}

/**
 * One round, in a fresh process: N slow-handshake servers connected at once (and RSS
 * while they are), then one such server alone, then optionally all N one after another.
 */
export async function measureStartup(driver: ClientDriver, settings: PhaseSettings, options: StartupOptions): Promise<StartupRound> {
  const server: EchoServer = { script: options.script, initDelayMs: settings.startupInitDelayMs };
  const servers = Array.from({ length: settings.startupServers }, () => server);
  const baselineRssMiB = rssMiB();
  let memory: Pick<StartupRound, 'connectedRssMiB' | 'settledRssMiB' | 'settledHeapUsedMiB'> | undefined;
  const parallelReadyMs = await timeToReady(driver, servers, 'parallel', async () => {
    const connectedRssMiB = rssMiB();
    await sleep(500);
    memory = { connectedRssMiB, settledRssMiB: rssMiB(), settledHeapUsedMiB: process.memoryUsage().heapUsed / MIB };
  });
  const singleReadyMs = await timeToReady(driver, [server], 'parallel');
  const sequentialReadyMs = options.sequential ? await timeToReady(driver, servers, 'sequential') : undefined;
  if (!memory) throw new Error('memory was not measured');
  return { parallelReadyMs, singleReadyMs, ...(sequentialReadyMs !== undefined ? { sequentialReadyMs } : {}), baselineRssMiB, ...memory };
}

async function checkEveryServer(caller: Caller | undefined, count: number): Promise<void> {
  if (!caller) throw new Error('the driver offered no caller');
  for (let index = 0; index < count; index += 1) checkEcho(await caller.call(index, 'echo', ECHO_ARGS));
}

async function sequentialRound(caller: Caller, calls: number, latencies?: number[]): Promise<Round> {
  const cpu = process.cpuUsage();
  const started = now();
  for (let index = 0; index < calls; index += 1) {
    const callStarted = now();
    const text = await caller.call(0, 'echo', ECHO_ARGS);
    latencies?.push(now() - callStarted);
    checkEcho(text);
  }
  const wallMs = now() - started;
  return { calls, wallMs, cpuMicros: cpuMicrosSince(cpu) };
}

async function inflightRound(caller: Caller, calls: number, concurrency: number): Promise<Round> {
  let issued = 0;
  const worker = async () => {
    while (issued < calls) {
      issued += 1;
      checkEcho(await caller.call(0, 'echo', ECHO_ARGS));
    }
  };
  const { wallMs, cpuMicros } = await measure(() => Promise.all(Array.from({ length: concurrency }, worker)));
  return { calls, wallMs, cpuMicros };
}

async function payloadRound(caller: Caller, calls: number, bytes: number): Promise<Round> {
  const { wallMs, cpuMicros } = await measure(async () => {
    for (let index = 0; index < calls; index += 1) {
      const text = await caller.call(0, 'payload', { bytes });
      if (text.length !== bytes) throw new Error(`payload answered ${text.length} bytes, not ${bytes}`);
    }
  });
  return { calls, wallMs, cpuMicros };
}

/**
 * Every step for every caller of one connection to one server. Rounds alternate between
 * callers (and rotate who goes first), so drift during the run favours neither.
 */
export interface MeasureHooks {
  /** Around the rounds with calls in flight (after warm-up and the sequential rounds): for `--profile-inflight`. */
  beforeInflight?: () => Promise<void>;
  afterInflight?: () => Promise<void>;
}

export async function measureCalls(callers: readonly Caller[], settings: PhaseSettings, hooks: MeasureHooks = {}): Promise<CallerRounds[]> {
  // Until V8 has optimised the whole call path; the first thousands of calls run slower.
  for (const caller of callers) {
    await sequentialRound(caller, settings.warmupCalls);
    await inflightRound(caller, settings.warmupCalls, settings.concurrency);
    if (settings.payloadRounds > 0) await payloadRound(caller, 4, settings.payloadBytes);
  }
  const results = new Map(
    callers.map((caller): [string, CallerRounds] => [
      caller.key,
      { key: caller.key, label: caller.label, sequential: [], latenciesMs: [], inflight: [], payload: [] },
    ]),
  );
  const entry = (caller: Caller) => results.get(caller.key) as CallerRounds;
  const order = (round: number) => callers.map((_, index) => callers[(index + round) % callers.length] as Caller);

  for (let round = 0; round < settings.sequentialRounds; round += 1) {
    for (const caller of order(round))
      entry(caller).sequential.push(await sequentialRound(caller, settings.sequentialCalls, entry(caller).latenciesMs));
  }
  await hooks.beforeInflight?.();
  for (let round = 0; round < settings.inflightRounds; round += 1) {
    for (const caller of order(round))
      entry(caller).inflight.push(await inflightRound(caller, settings.inflightCalls, settings.concurrency));
  }
  await hooks.afterInflight?.();
  for (let round = 0; round < settings.payloadRounds; round += 1) {
    for (const caller of order(round)) entry(caller).payload.push(await payloadRound(caller, settings.payloadCalls, settings.payloadBytes));
  }
  return [...results.values()];
}
