/**
 * Every event type weft writes to a run's log, in one catalogue: the store's and the
 * projection's (`RUN_EVENT`), the engine's (`ENGINE_EVENT`), an agent stage's transcript
 * (`AGENT_EVENT`) and MCP sampling (`SAMPLING_EVENT`). The log is the contract between the
 * layers that write and read it, so no other module spells an event type out
 * (`event-types.test.ts` checks). Types are noun-verb kebab strings.
 */

export const RUN_EVENT = {
  runCreated: 'run-created',
  runStatusChanged: 'run-status-changed',
  runArchived: 'run-archived',
  runUnarchived: 'run-unarchived',
  runParentChanged: 'run-parent-changed',
  stageStarted: 'stage-started',
  stageFinished: 'stage-finished',
  toolCallStarted: 'tool-call-started',
  toolCallFinished: 'tool-call-finished',
  questionAsked: 'question-asked',
  questionAnswered: 'question-answered',
  artifactSaved: 'artifact-saved',
  pairStarted: 'pair-started',
  pairEnded: 'pair-ended',
} as const;

/** Written only by the store's own methods (createRun, setArchived, setParent), never by appendEvents. */
export const RESERVED_EVENT_TYPES: ReadonlySet<string> = new Set([RUN_EVENT.runCreated, RUN_EVENT.runArchived, RUN_EVENT.runUnarchived, RUN_EVENT.runParentChanged]);

/** The events the engine writes beyond the store's own; replaying them tells a runner where a run stands. */
export const ENGINE_EVENT = {
  stageStarted: RUN_EVENT.stageStarted,
  stageFinished: RUN_EVENT.stageFinished,
  childRunCreated: 'child-run-created',
  cancelRequested: 'run-cancel-requested',
  interruptRequested: 'run-interrupt-requested',
  resumeRequested: 'run-resume-requested',
  messageSent: 'message-sent',
  signalSent: 'run-signal-sent',
  stageOutput: 'stage-output',
  stageProcessStarted: 'stage-process-started',
} as const;

/** What an agent stage writes so its transcript can be read back (see `agent/transcript-events.ts`). */
export const AGENT_EVENT = {
  agentStarted: 'agent-started',
  modelTurnFinished: 'model-turn-finished',
  toolCallStarted: RUN_EVENT.toolCallStarted,
  toolCallFinished: RUN_EVENT.toolCallFinished,
  messageDelivered: 'message-delivered',
} as const;

/** An MCP server's sampling request served by the run's model (see `app/mcp-host/sampling-handler.ts`). */
export const SAMPLING_EVENT = {
  requested: 'sampling-requested',
  finished: 'sampling-finished',
} as const;

/** Every event type in the catalogue. */
export const EVENT_TYPES: ReadonlySet<string> = new Set([RUN_EVENT, ENGINE_EVENT, AGENT_EVENT, SAMPLING_EVENT].flatMap((catalogue) => Object.values(catalogue)));
