/**
 * Where full tool outputs go when the output budget cuts what the model sees. The file
 * implementation writes under the storage dir, with secrets redacted like everything else
 * weft stores; runs later give each run its own folder.
 */
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../core/ids.js';
import { redactSecrets } from '../core/redact.js';

export interface ArtifactSink {
  /**
   * Saves the parts, one after the other with a newline between them, and returns where
   * they can be found (a path a person can open).
   */
  save(label: string, parts: readonly string[]): Promise<string>;
}

/** Characters encoded per write: a huge result is never copied whole into one buffer. */
const WRITE_CHARS = 1024 * 1024;

export function fileArtifactSink(directory: string): ArtifactSink {
  return {
    async save(label, parts) {
      await mkdir(directory, { recursive: true });
      const safeLabel = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
      const path = join(directory, `${newId()}-${safeLabel}.txt`);
      const file = await open(path, 'w', 0o600);
      try {
        for (const [index, unsafe] of parts.entries()) {
          const part = redactSecrets(unsafe);
          if (index > 0) await file.write('\n');
          let start = 0;
          while (start < part.length) {
            let end = Math.min(part.length, start + WRITE_CHARS);
            // Never end a slice between the two halves of a surrogate pair.
            if (end < part.length && isHighSurrogate(part.charCodeAt(end - 1))) end -= 1;
            await file.write(part.slice(start, end));
            start = end;
          }
        }
      } finally {
        await file.close();
      }
      return path;
    },
  };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
