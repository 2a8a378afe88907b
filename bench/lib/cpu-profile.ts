/**
 * bench/lib: reading a V8 `.cpuprofile` (from `node --cpu-prof`) into self time per
 * source module and per function. Bundled code is mapped back to its source file through
 * the `// src/…/file.ts` markers esbuild writes before each module; code from packages is
 * grouped by package; V8's pseudo-frames ((garbage collector), (program), (idle)) stay as
 * they are.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface SelfTime {
  /** Source module (`src/mcp/hub/session.ts`), package (`@modelcontextprotocol/core`), `node:internal`, or a V8 pseudo-frame. */
  module: string;
  ms: number;
}

export interface FunctionTime extends SelfTime {
  name: string;
  /** Bundled code: its source module (bundle lines would mislead); packages: `file:line`. */
  where: string;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  /** Everything but (idle). */
  busyMs: number;
  modules: SelfTime[];
  functions: FunctionTime[];
}

const MODULE_MARKER = /^\/\/ ((?:src|bench|test)\/\S+\.(?:ts|mts|js|mjs))$/;

/** For a bundle file: the source module that starts at each marker line (0-based), ascending. */
function bundleMarkers(path: string): { line: number; module: string }[] {
  const markers: { line: number; module: string }[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, line) => {
      const match = MODULE_MARKER.exec(text);
      if (match?.[1]) markers.push({ line, module: match[1] });
    });
  return markers;
}

function packageOf(path: string): string {
  const after = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const parts = after.split('/');
  return after.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? after);
}

export function summarizeProfile(path: string, options: { bundleDir: string }): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const markerCache = new Map<string, { line: number; module: string }[]>();
  // Frames name the real path; the bundle dir may sit behind a symlinked node_modules.
  const bundleDir = realpathSync(options.bundleDir);

  const locate = (frame: CallFrame): { module: string; where: string } => {
    const module = moduleOf(frame);
    const { url, lineNumber } = frame;
    if (url.includes('/node_modules/') && !url.includes('/node_modules/.cache/')) {
      return { module, where: `${url.slice(url.lastIndexOf('node_modules/') + 'node_modules/'.length)}:${lineNumber + 1}` };
    }
    if (url.startsWith('node:')) return { module, where: `${url}:${lineNumber + 1}` };
    return { module, where: module };
  };

  const moduleOf = (frame: CallFrame): string => {
    const { url, functionName } = frame;
    if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
    if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    if (file.startsWith(bundleDir)) {
      // Bundled bench + weft code: find the module marker above the frame's line.
      let markers = markerCache.get(file);
      if (!markers) {
        markers = bundleMarkers(file);
        markerCache.set(file, markers);
      }
      let found = '(bundle)';
      for (const marker of markers) {
        if (marker.line > frame.lineNumber) break;
        found = marker.module;
      }
      return found;
    }
    if (file.includes('/node_modules/')) return packageOf(file);
    return file;
  };

  // A sample lasts until the next one; the last gets the mean interval.
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const meanDelta = deltas.length > 1 ? deltas.slice(1).reduce((a, b) => a + b, 0) / (deltas.length - 1) : 0;
  const selfMicros = new Map<number, number>();
  samples.forEach((id, index) => {
    const duration = deltas[index + 1] ?? meanDelta;
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + duration);
  });

  const modules = new Map<string, number>();
  const functions = new Map<string, FunctionTime>();
  let totalMicros = 0;
  let idleMicros = 0;
  for (const [id, micros] of selfMicros) {
    const node = nodes.get(id);
    if (!node) continue;
    totalMicros += micros;
    const { module, where } = locate(node.callFrame);
    if (module === '(idle)') idleMicros += micros;
    modules.set(module, (modules.get(module) ?? 0) + micros);
    const name = node.callFrame.functionName || '(anonymous)';
    const key = `${name}@${where}`;
    const entry = functions.get(key) ?? { name, where, module, ms: 0 };
    entry.ms += micros / 1000;
    functions.set(key, entry);
  }
  return {
    totalMs: totalMicros / 1000,
    idleMs: idleMicros / 1000,
    busyMs: (totalMicros - idleMicros) / 1000,
    modules: [...modules].map(([module, micros]) => ({ module, ms: micros / 1000 })).sort((a, b) => b.ms - a.ms),
    functions: [...functions.values()].sort((a, b) => b.ms - a.ms),
  };
}
