/**
 * The settings one attempt of a run works with, read from the run's directory once: its
 * toolbox (tools, MCP servers, approval rules) and each of its agent stages (`[llm]`) see the
 * same values instead of re-reading the files for every stage. A retry is a new attempt and
 * reads them again, so fixing a setting and retrying works.
 */
import type { RunRecord } from '../../runs/model/run-record.js';
import { loadSettings, type Settings } from '../../core/settings/settings.js';

/** Attempts whose settings stay in memory (a worker runs a handful at a time). */
const KEPT_ATTEMPTS = 64;

export type RunSettings = (run: Pick<RunRecord, 'id' | 'attempt' | 'cwd'>) => Promise<Settings>;

export function runSettingsReader(storageDir: string): RunSettings {
  const read = new Map<string, Promise<Settings>>();
  return (run) => {
    const key = `${run.id}#${run.attempt}`;
    let settings = read.get(key);
    if (settings === undefined) {
      settings = loadSettings({ storageDir, workspaceRoot: run.cwd });
      // A broken settings file is reported on every use until it is fixed.
      settings.catch(() => read.delete(key));
      read.set(key, settings);
      if (read.size > KEPT_ATTEMPTS) read.delete(read.keys().next().value as string);
    }
    return settings;
  };
}
