/**
 * The Debian packages the tests need besides node_modules: bubblewrap and socat (the `os`
 * sandbox), ripgrep, faketime (libfaketime: a worker with a skewed clock). Missing ones are installed with apt-get when the tests run as root on
 * Debian (a fresh CI machine); anywhere else the run stops, naming the packages and the
 * command. Quick when all are present: three PATH lookups and a file check.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** libfaketime's preload library (Debian's multiarch path), for LD_PRELOAD with FAKETIME. */
export const LIBFAKETIME = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

const NEEDED: { apt: string; present: () => boolean }[] = [
  { apt: 'bubblewrap', present: () => onPath('bwrap') },
  { apt: 'socat', present: () => onPath('socat') },
  { apt: 'ripgrep', present: () => onPath('rg') },
  { apt: 'faketime', present: () => existsSync(LIBFAKETIME) },
];

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((folder) => {
    try {
      accessSync(join(folder, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function ensureSystemPackages(): void {
  const missing = NEEDED.filter((entry) => !entry.present()).map((entry) => entry.apt);
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0 || !existsSync('/etc/debian_version')) {
    throw new Error(
      `The tests need the packages ${missing.join(', ')} (the os sandbox, ripgrep, libfaketime). Install them: sudo sh -c '${command}'`,
    );
  }
  process.stderr.write(`Installing ${missing.join(', ')} for the tests: ${command}\n`);
  execFileSync('/bin/sh', ['-c', command], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
