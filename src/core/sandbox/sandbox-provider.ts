/**
 * The seam every process a run starts goes through: a `SandboxProvider` prepares a run's
 * sandbox once (private temp dir, network proxy), `wrap`s each process spec into one that
 * runs inside it, reads violations from what a process wrote to stderr, and is disposed of
 * when the run's attempt ends. The `os` provider (bubblewrap) is the one built; a container
 * or remote provider (Docker, Daytona, E2B) implements the same three calls.
 */
import type { SandboxRules } from './sandbox-rules.js';

/** A process to start: what `child_process.spawn` takes. */
export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
}

/** What the sandbox refused, and which setting would allow it. */
export type SandboxViolation =
  | { kind: 'write'; path: string; setting: 'allow_write' }
  | { kind: 'read'; path: string; setting: 'deny_read' }
  | { kind: 'network'; host: string; port: number; setting: 'network.allow' };

/** Extra room one process gets beyond the run's rules (a CLI stage's own config home, its model endpoint). */
export interface WrapExtras {
  allowWrite?: readonly string[];
  /** `host:port` entries the proxy lets this run reach from now on. */
  allowHosts?: readonly string[];
  /**
   * Ports of the host's loopback this process reaches at the same address (127.0.0.1:port),
   * forwarded by weft: for clients that ignore `HTTP_PROXY` (a CLI's MCP client reaching
   * weft's run-tools server).
   */
  loopbackPorts?: readonly number[];
  /** Ports a server inside listens on (its own 127.0.0.1), that weft reaches through `exposePort` (a `type = "sandbox"` MCP server). */
  inboundPorts?: readonly number[];
}

/** One run's prepared sandbox. */
export interface PreparedSandbox {
  readonly rules: SandboxRules;
  /** The same process, started inside the sandbox. */
  wrap(spec: ProcessSpec, extras?: WrapExtras): ProcessSpec;
  /** A port on the host's 127.0.0.1 that reaches `port` inside the sandbox (of a process wrapped with it in `inboundPorts`). */
  exposePort(port: number): Promise<number>;
  /** Whether the process `pid` started (wrapped) listens on `port` inside the sandbox. */
  listensInside(pid: number, port: number): boolean;
  /** Violations a process's stderr shows (paths resolved from `cwd`), reported to the run as they are returned. */
  noticeViolations(stderr: string, cwd: string): SandboxViolation[];
  dispose(): Promise<void>;
}

/** What is missing on this machine for a provider, with the command that installs it. */
export interface SandboxRequirements {
  ok: boolean;
  missing: string[];
  /** e.g. `apt-get install bubblewrap socat` */
  install?: string;
  /** Said about what works but less well (e.g. how processes are limited on this kernel). */
  notes: string[];
}

export interface SandboxProvider {
  readonly name: string;
  requirements(): SandboxRequirements;
  /** Throws a `WeftError` naming what is missing; `onViolation` hears what the proxy refuses. */
  prepare(rules: SandboxRules, context: { onViolation: (violation: SandboxViolation) => void }): Promise<PreparedSandbox>;
}

/** How a violation reads to the agent and the user. */
export function describeViolation(violation: SandboxViolation): string {
  switch (violation.kind) {
    case 'write':
      return `the sandbox refused a write to ${violation.path}: it is outside [run.sandbox] allow_write (add the folder there to allow it)`;
    case 'read':
      return `the sandbox refused to read ${violation.path}: [run.sandbox] deny_read hides it (credential folders and weft's storage are always hidden)`;
    case 'network':
      return `the sandbox refused a connection to ${violation.host}:${violation.port}: allow it with [run.sandbox] network = { allow = ["${violation.host}"] }`;
    default: {
      const unknown: never = violation;
      return String(unknown);
    }
  }
}
