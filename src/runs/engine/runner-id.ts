/**
 * Runner ids, as held in run leases: `<pid>-<ulid>@<host>/<start>`. Besides being unique,
 * the id says which process holds a lease, so another runner on the same host can see
 * that the holder died (its pid is gone, or belongs to a process started later) and take
 * the run over at once instead of waiting for the lease to run out.
 */
import { processIdentity, thisHost, type ProcessIdentity } from '../../core/process-identity.js';

const RUNNER_ID = /^(\d+)-[0-9A-Z]{26}@([^/]+)\/(\d*)$/;

/** The id of a runner in this process. */
export function runnerId(ulid: string): string {
  const self = processIdentity(process.pid) ?? { host: thisHost(), pid: process.pid, start: '' };
  return `${self.pid}-${ulid}@${self.host}/${self.start}`;
}

/** The process behind a runner id; undefined for ids in another form (older runners, tests). */
export function runnerProcess(workerId: string): ProcessIdentity | undefined {
  const match = RUNNER_ID.exec(workerId);
  return match ? { pid: Number(match[1]), host: match[2]!, start: match[3]! } : undefined;
}
