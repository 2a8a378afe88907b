/**
 * How `weft inspect` and `weft logs` show what a stage produced: the head of its output
 * (its lines kept, `--full` for all), and failure messages whole, never cut.
 */
import { formatDuration } from '../../core/duration.js';
import type { RunRecord } from '../../runs/model/run-record.js';
import type { StageRecord } from '../../runs/stage-fold.js';
import { costOf, costText, formatUsd, type TokenUsage } from '../../runs/model/token-usage.js';

/** Lines of output shown before "… N more lines". */
const HEAD_LINES = 3;
const LINE_WIDTH = 160;

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/**
 * `value` as indented lines: all of them when `full`, else the first few, each cut to the
 * terminal's width, and a count of the rest.
 *
 * @example outputLines('a\nb', '    ', false) // → ['    a', '    b']
 */
export function outputLines(value: unknown, indent: string, full: boolean, more = 'weft logs --full'): string[] {
  const lines = textOf(value).replace(/\s+$/, '').split('\n');
  if (full) return lines.map((line) => `${indent}${line}`);
  const shown = lines
    .slice(0, HEAD_LINES)
    .map((line) => `${indent}${line.length > LINE_WIDTH ? `${line.slice(0, LINE_WIDTH - 1)}…` : line}`);
  return lines.length > HEAD_LINES ? [...shown, `${indent}… ${lines.length - HEAD_LINES} more lines (${more})`] : shown;
}

/** A failure message in full; its later lines indented under the first. */
export function errorText(error: string, indent: string): string {
  return error.replace(/\s+$/, '').split('\n').join(`\n${indent}`);
}

/** ` · 120 in / 20 out tokens · $0.0012 estimated`, or '' when no model ran. */
export function tokensNote(tokens: TokenUsage | undefined): string {
  if (tokens === undefined || tokens.totalTokens === 0) return '';
  const cost = costText(tokens);
  return ` · ${tokens.inputTokens} in / ${tokens.outputTokens} out tokens${cost === '' ? '' : ` · ${cost}`}`;
}

/** The run's cost line for `weft inspect`, or undefined when nothing is known. */
export function costLine(tokens: TokenUsage): string | undefined {
  const cost = costText(tokens);
  return cost === '' ? undefined : `  cost      ${cost}`;
}

/**
 * The cost as one short cell of `weft ps`: `$0.12` when reported, `~$0.12` when any part is
 * an estimate, `?` when no turn had a price, '' when no model ran.
 */
export function costCell(tokens: TokenUsage | undefined): string {
  const cost = costOf(tokens);
  if (!cost.priced) return cost.unpricedTurns > 0 ? '?' : '';
  const estimated = tokens?.estimatedCostUsd !== undefined || cost.unpricedTurns > 0;
  return `${estimated ? '~' : ''}${formatUsd(cost.reportedUsd + cost.estimatedUsd)}`;
}

/** The run's token line for `weft inspect`: cached input and reasoning where the provider reported them. */
export function tokensLine(tokens: TokenUsage): string {
  const cached = tokens.cachedInputTokens === undefined ? '' : ` (${tokens.cachedInputTokens} cached)`;
  const reasoning = tokens.reasoningTokens === undefined ? '' : ` (${tokens.reasoningTokens} reasoning)`;
  return `  tokens    ${tokens.inputTokens} in${cached} · ${tokens.outputTokens} out${reasoning} · ${tokens.totalTokens} total`;
}

const MARK: Record<string, string> = { succeeded: '✓', failed: '✗', cancelled: '✗', abandoned: '↺', interrupted: '↺' };

/** The stages block of `weft inspect`, with a note when a stage failed although the run succeeded. */
export function stageLines(run: RunRecord, stages: readonly StageRecord[]): string[] {
  if (stages.length === 0) return [];
  const width = Math.max(...stages.map((stage) => stage.stageId.length));
  const lines = ['  stages'];
  for (const stage of stages) {
    const { status } = stage;
    const took = stage.durationMs !== undefined ? `  ${formatDuration(stage.durationMs)}` : '';
    const turns = stage.turns > 0 ? `  ${stage.turns} turn${stage.turns === 1 ? '' : 's'}` : '';
    lines.push(
      `    ${MARK[status] ?? '▶'} ${stage.stageId.padEnd(width)}  ${stage.kind.padEnd(7)}  ${status}${took}${turns}${tokensNote(stage.usage)}`,
    );
    if (stage.error !== undefined) lines.push(`        error: ${errorText(stage.error, '               ')}`);
    const made = stage.checkpoint;
    if (made !== undefined)
      lines.push(
        `        checkpoint ${made.commit.slice(0, 12)}: ${made.filesChanged} file${made.filesChanged === 1 ? '' : 's'} changed, +${made.linesAdded} -${made.linesRemoved}`,
      );
    if (stage.output !== undefined && textOf(stage.output) !== '')
      lines.push(...outputLines(stage.output, '        │ ', false, `weft logs ${run.id} --full`));
  }
  const failed = stages.filter((stage) => stage.status === 'failed');
  if (run.status === 'succeeded' && failed.length > 0) {
    lines.push(
      `  note      ${failed.map((stage) => stage.stageId).join(', ')} failed, but the run succeeded: the workflow went on past the failure.`,
    );
  }
  return lines;
}
