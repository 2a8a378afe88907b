/**
 * Messages people send to a run (`message-sent`) while an agent stage works, read from
 * the run's log with a cursor so each reaches the model exactly once, on its next turn.
 * Reading the log (rather than waiting on the run's control watcher) means a message
 * appended just before a turn is never missed by a poll still in flight.
 */
import { ENGINE_EVENT } from '../runs/model/event-types.js';
import type { StageRuns } from '../runs/engine/stage-context.js';

export interface RunMessage {
  seq: number;
  text: string;
}

export interface MessageInbox {
  /** Messages that arrived since the last call, oldest first. */
  take(): Promise<RunMessage[]>;
}

/** Reads `message-sent` events after `afterSeq`; ones addressed to another stage are skipped. */
export function runMessageInbox(runs: Pick<StageRuns, 'ownEvents'>, stageId: string, afterSeq: number): MessageInbox {
  let cursor = afterSeq;
  return {
    take: async () => {
      const messages: RunMessage[] = [];
      for (;;) {
        const events = await runs.ownEvents({ afterSeq: cursor, types: [ENGINE_EVENT.messageSent], limit: 100 });
        for (const event of events) {
          cursor = Math.max(cursor, event.seq);
          if (event.stageId !== undefined && event.stageId !== stageId) continue;
          const text = event.payload.text;
          if (typeof text === 'string' && text.trim() !== '') messages.push({ seq: event.seq, text });
        }
        if (events.length < 100) return messages;
      }
    },
  };
}
