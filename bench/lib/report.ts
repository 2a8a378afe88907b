/**
 * bench/lib: writing results — every benchmark leaves `bench/results/<name>.json` (the
 * raw numbers, for tooling) and `bench/results/<name>.md` (a Markdown table, for people)
 * — plus the number formatting the tables share.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { RESULTS_DIR } from './paths.js';

export type Align = 'left' | 'right';

export interface Table {
  headers: readonly string[];
  rows: readonly (readonly string[])[];
  /** Per column; numbers read best right-aligned. Default: first column left, the rest right. */
  align?: readonly Align[];
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function markdownTable(table: Table): string {
  const align = table.headers.map((_, index) => table.align?.[index] ?? (index === 0 ? 'left' : 'right'));
  const widths = table.headers.map((header, index) =>
    Math.max(3, header.length, ...table.rows.map((row) => escapeCell(row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, index) => {
        const text = escapeCell(cell);
        const width = widths[index] ?? text.length;
        return align[index] === 'right' ? text.padStart(width) : text.padEnd(width);
      })
      .join(' | ')} |`;
  const rule = `|${widths.map((width, index) => (align[index] === 'right' ? `${'-'.repeat(width + 1)}:` : `:${'-'.repeat(width + 1)}`)).join('|')}|`;
  return [line(table.headers), rule, ...table.rows.map((row) => line(table.headers.map((_, index) => row[index] ?? '')))].join('\n');
}

/** A number with `digits` decimals, thousands separated; `–` for NaN / undefined. */
export function formatNumber(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `a ÷ b` as `1.04×`; `–` when either side is missing. */
export function formatRatio(numerator: number | undefined, denominator: number | undefined): string {
  if (
    numerator === undefined ||
    denominator === undefined ||
    !Number.isFinite(numerator) ||
    !Number.isFinite(denominator) ||
    denominator === 0
  )
    return '–';
  return `${(numerator / denominator).toFixed(2)}×`;
}

export interface WrittenResults {
  json: string;
  markdown: string;
}

/** Writes `<name>.json` and `<name>.md` under `bench/results/`; returns both paths. */
export function writeResults(name: string, data: unknown, markdown: string): WrittenResults {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = join(RESULTS_DIR, `${name}.json`);
  const md = join(RESULTS_DIR, `${name}.md`);
  writeFileSync(json, `${JSON.stringify(data, null, 2)}\n`);
  writeFileSync(md, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return { json, markdown: md };
}

/** Facts about the machine a result came from, for the JSON and the Markdown header. */
export function machineInfo(): { node: string; platform: string; cpus: number; cpuModel: string; date: string } {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    date: new Date().toISOString(),
  };
}
