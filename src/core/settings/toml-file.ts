/**
 * Reads a TOML file into a plain object; a syntax error becomes one clear line naming the
 * file, line and column.
 */
import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { WeftError } from '../errors.js';

export interface TomlDocument {
  file: string;
  data: Record<string, unknown>;
}

/** Returns undefined when the file does not exist. */
export async function readTomlFile(file: string): Promise<TomlDocument | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WeftError('SETTINGS_INVALID', `${file}: cannot read the file (${(error as Error).message}).`, { cause: error });
  }
  return { file, data: parseToml(file, text) };
}

export function parseToml(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'syntax error';
      throw new WeftError(
        'SETTINGS_INVALID',
        `${file}:${error.line}:${error.column}: TOML syntax error: ${reason}. Fix the file or move it aside.`,
        {
          data: { file, line: error.line, column: error.column },
        },
      );
    }
    throw error;
  }
}
