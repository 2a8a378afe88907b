/**
 * The one test for "binary" that read_file, edit_file and grep share (a NUL byte in the
 * first 8 KiB, as git does), so the tools agree on which files they will show as text.
 */
import { promises as fs } from 'node:fs';

export const SNIFF_BYTES = 8192;

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

export async function isBinaryFile(absolutePath: string): Promise<boolean> {
  const handle = await fs.open(absolutePath, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} byte${bytes === 1 ? '' : 's'}`;
}
