/**
 * `node --import` entry that registers the `fs.globSync` loader hooks
 * (`node20-globsync.mjs`) for the MCP conformance CLI — only where Node's own fs lacks
 * `globSync` (before Node 22); on newer Node it does nothing.
 */
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./node20-globsync.mjs', import.meta.url);
