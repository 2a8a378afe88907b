/**
 * The process group a lost runner's `command` stage left behind. The dead runner's watchdog
 * ends it too, but the runner that takes the run over must not start the stage again while
 * the old copy still writes, so it ends the group itself and waits until it is gone.
 */
import type { Logger } from '../../core/logger.js';
import { groupAlive, terminateGroup } from '../../core/process-group.js';
import { endMarkedProcesses } from '../../core/marked-processes.js';
import { identityState, type IdentityState } from '../../core/process-identity.js';
import type { StageProcessStartedPayload } from '../model/event-types.js';

/** SIGTERM, then SIGKILL after this long: the same grace a cancelled command gets. */
const KILL_GRACE_MS = 1000;

/**
 * Ends the group and resolves true once it is gone; false when it survived SIGKILL (a
 * process stuck in the kernel), and the stage must not run again. A group on another host
 * cannot be seen from here: it is logged and left to that host's watchdog.
 */
export async function endAbandonedGroup(stageId: string, group: StageProcessStartedPayload, logger: Logger): Promise<boolean> {
  const { pgid, host } = group;
  const state = identityState({ host, pid: pgid, start: group.start });
  if (state === 'elsewhere') {
    logger.warn(
      `stage ${stageId}: its process group ${pgid} ran on host ${host}; that host's watchdog ends it, it cannot be checked from here`,
    );
    return true;
  }
  const groupGone = await endGroup(stageId, pgid, state, logger);
  // What the stage started outside its group (a CLI agent's shell commands) carries its marker.
  if (group.marker === undefined) return groupGone;
  return (await endMarkedProcesses(group.marker, KILL_GRACE_MS)) && groupGone;
}

async function endGroup(stageId: string, pgid: number, state: Exclude<IdentityState, 'elsewhere'>, logger: Logger): Promise<boolean> {
  switch (state) {
    case 'replaced':
      // The kernel does not hand out a pid that still names a process group: the old group is empty.
      return true;
    case 'alive':
    case 'exited':
      if (!groupAlive(pgid)) return true;
      logger.info(`stage ${stageId}: ending process group ${pgid} left by the lost runner before running the stage again`);
      await terminateGroup(pgid, KILL_GRACE_MS);
      return !groupAlive(pgid);
    default: {
      const unknown: never = state;
      return unknown;
    }
  }
}
