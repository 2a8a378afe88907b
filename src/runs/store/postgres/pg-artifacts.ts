/**
 * Full tool outputs kept in the shared database instead of the local disk, so a run
 * resumed on another host (and a person on any host) finds them. The saved place is an
 * artifact reference, `weft-artifact:<id>`, that `weft store artifact <id>` prints.
 */
import { redactSecrets } from '../../../core/redact.js';
import type { ArtifactSink } from '../../../tools/artifact-sink.js';
import type { PostgresRunStore } from './postgres-run-store.js';

export const ARTIFACT_REF_PREFIX = 'weft-artifact:';

export function postgresArtifactSink(store: Pick<PostgresRunStore, 'saveArtifact'>, runId: string | undefined): ArtifactSink {
  return {
    async save(label, parts) {
      return `${ARTIFACT_REF_PREFIX}${await store.saveArtifact(runId, label, redactSecrets(parts.join('\n')))}`;
    },
  };
}
