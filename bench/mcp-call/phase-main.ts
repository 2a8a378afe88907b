/**
 * bench/mcp-call: the entry point of one phase child process. Loads only the driver of
 * its phase (so the RSS it reports holds that client's code and nothing else), runs one
 * part of the protocol, and writes a `PhaseOutput` as JSON to `--out`.
 *
 *   node phase.mjs --phase hub|v2|v1 --mode startup|calls --echo <echo-server.mjs> --out <file.json>
 *        [--settings full|quick|profile] [--sequential-startup] [--callers key,key] [--profile-inflight <file.cpuprofile>]
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import type { ClientDriver } from './driver.js';
import { measureCalls, measureStartup, type MeasureHooks } from './protocol.js';
import { PHASES, SETTINGS, type PhaseName, type PhaseOutput, type SettingsName } from './results.js';

async function loadDriver(phase: PhaseName): Promise<ClientDriver> {
  switch (phase) {
    case 'hub':
      return (await import('./hub-phase.js')).hubDriver;
    case 'v2':
      return (await import('./v2-phase.js')).v2Driver;
    case 'v1':
      return (await import('./v1-phase.js')).v1Driver;
    default: {
      const unreachable: never = phase;
      throw new Error(`unknown phase ${String(unreachable)}`);
    }
  }
}

function isPhase(value: string | undefined): value is PhaseName {
  return PHASES.some((phase) => phase === value);
}

function isSettingsName(value: string | undefined): value is SettingsName {
  return value !== undefined && Object.hasOwn(SETTINGS, value);
}

/** CPU-profiles only the rounds with calls in flight, into `file` (a `.cpuprofile`). */
function inflightProfiler(file: string): MeasureHooks {
  const session = new Session();
  return {
    async beforeInflight() {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 250 });
      await session.post('Profiler.start');
    },
    async afterInflight() {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      phase: { type: 'string' },
      echo: { type: 'string' },
      out: { type: 'string' },
      settings: { type: 'string', default: 'full' },
      mode: { type: 'string', default: 'calls' },
      'sequential-startup': { type: 'boolean', default: false },
      callers: { type: 'string' },
      'profile-inflight': { type: 'string' },
    },
  });
  const { phase, echo, out } = values;
  if (!isPhase(phase) || !echo || !out) throw new Error(`usage: --phase ${PHASES.join('|')} --echo <echo-server.mjs> --out <file.json>`);
  if (!isSettingsName(values.settings)) throw new Error(`--settings must be one of ${Object.keys(SETTINGS).join(', ')}`);
  const settings = SETTINGS[values.settings];
  const driver = await loadDriver(phase);

  const mode = values.mode;
  if (mode !== 'startup' && mode !== 'calls') throw new Error('--mode must be startup or calls');
  const result: PhaseOutput = { phase, client: driver.label, mode, callers: [] };
  if (mode === 'startup') {
    result.startup = await measureStartup(driver, settings, { script: echo, sequential: values['sequential-startup'] });
    writeFileSync(out, JSON.stringify(result));
    return;
  }
  const connection = await driver.connect([{ script: echo, initDelayMs: 0 }], 'parallel');
  try {
    const wanted = values.callers?.split(',');
    const callers = wanted ? connection.callers.filter((caller) => wanted.includes(caller.key)) : connection.callers;
    if (callers.length === 0) throw new Error(`no caller matches --callers ${values.callers ?? ''}`);
    const profileFile = values['profile-inflight'];
    result.callers = await measureCalls(callers, settings, profileFile ? inflightProfiler(profileFile) : {});
  } finally {
    await connection.close();
  }
  writeFileSync(out, JSON.stringify(result));
}

main().then(
  // Lingering handles (a watchdog pipe, a closing stream) must not hold the phase open.
  () => process.exit(0),
  (error: unknown) => {
    console.error(`phase failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
