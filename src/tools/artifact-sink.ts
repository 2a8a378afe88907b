/**
 * Where full tool outputs go when the output budget cuts what the model sees. The file
 * implementation writes under the storage dir, with secrets redacted like everything else
 * weft stores; runs later give each run its own folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../core/ids.js';
import { redactSecrets } from '../core/redact.js';

export interface ArtifactSink {
  /** Saves `content` and returns where it can be found (a path a person can open). */
  save(label: string, content: string): Promise<string>;
}

export function fileArtifactSink(directory: string): ArtifactSink {
  return {
    async save(label, content) {
      await mkdir(directory, { recursive: true });
      const safeLabel = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
      const path = join(directory, `${newId()}-${safeLabel}.txt`);
      await writeFile(path, redactSecrets(content), { mode: 0o600 });
      return path;
    },
  };
}
