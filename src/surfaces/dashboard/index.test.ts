/**
 * The dashboard's files as weft serves them: every reference between them resolves to a
 * served path, nothing points off the machine, and every module parses as an ES module.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { dashboardAssets } from './index.js';

const text = (body: string | Uint8Array): string => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

describe('dashboardAssets', () => {
  it('serves the page at / and every file it and the modules refer to', () => {
    const assets = dashboardAssets();
    expect(assets.get('/')?.contentType).toBe('text/html; charset=utf-8');
    const page = text(assets.get('/')!.body);
    const referenced = [...page.matchAll(/(?:src|href)="(\/[^"]*)"/g)].map((match) => match[1]!);
    expect(referenced.sort()).toEqual(['/app.css', '/app.js', '/favicon.svg']);
    for (const [path, asset] of assets) {
      if (!path.endsWith('.js')) continue;
      expect(asset.contentType).toBe('text/javascript; charset=utf-8');
      for (const [, target] of text(asset.body).matchAll(/^import .* from '\.(\/[\w-]+\.js)';$/gm))
        expect(assets.has(target!), `${path} imports ${target}`).toBe(true);
    }
    expect([...assets.keys()].filter((path) => path.endsWith('.js')).sort()).toEqual([
      '/api.js',
      '/app.js',
      '/bulk-actions.js',
      '/concurrency-panel.js',
      '/dom.js',
      '/event-feed.js',
      '/login-page.js',
      '/mcp-page.js',
      '/new-run-form.js',
      '/question-form.js',
      '/run-actions.js',
      '/run-family.js',
      '/run-page.js',
      '/run-panels.js',
      '/run-produced.js',
      '/run-sandbox.js',
      '/run-timeline.js',
      '/runs-page.js',
      '/schedules-page.js',
      '/spend.js',
      '/workspace-panel.js',
    ]);
    expect(assets.get('/app.css')?.contentType).toBe('text/css; charset=utf-8');
  });

  it('points nowhere off the machine: no URL with a host but the SVG namespace', () => {
    for (const [path, asset] of dashboardAssets()) {
      const hosts = [...text(asset.body).matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s'"`)]*/gi)].map((match) => match[0]);
      expect(
        hosts.filter((url) => url !== 'http://www.w3.org/2000/svg'),
        path,
      ).toEqual([]);
    }
  });

  it('has modules that parse as ES modules', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-dashboard-'));
    try {
      for (const [path, asset] of dashboardAssets()) {
        if (!path.endsWith('.js')) continue;
        const file = join(dir, `${path.slice(1, -3)}.mjs`);
        await writeFile(file, asset.body);
        await expect(promisify(execFile)(process.execPath, ['--check', file]), path).resolves.toBeDefined();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
