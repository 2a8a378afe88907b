// Tool filters: the allow-list applies first, then the deny-list.
import { describe, expect, it } from 'vitest';
import { isToolAllowed } from './tool-filter.js';

describe('isToolAllowed', () => {
  it('allows everything without filters', () => {
    expect(isToolAllowed({ disabledTools: [] }, 'anything')).toBe(true);
  });

  it('applies enabled_tools as an allow-list', () => {
    const config = { enabledTools: ['search', 'fetch'], disabledTools: [] };
    expect(isToolAllowed(config, 'search')).toBe(true);
    expect(isToolAllowed(config, 'delete')).toBe(false);
  });

  it('applies disabled_tools after the allow-list', () => {
    const config = { enabledTools: ['search', 'fetch'], disabledTools: ['fetch', 'delete'] };
    expect(isToolAllowed(config, 'search')).toBe(true);
    expect(isToolAllowed(config, 'fetch')).toBe(false);
    expect(isToolAllowed({ disabledTools: ['delete'] }, 'delete')).toBe(false);
    expect(isToolAllowed({ disabledTools: ['delete'] }, 'read')).toBe(true);
  });

  it('treats an empty allow-list as no tools, and matches names exactly', () => {
    expect(isToolAllowed({ enabledTools: [], disabledTools: [] }, 'search')).toBe(false);
    expect(isToolAllowed({ enabledTools: ['search'], disabledTools: [] }, 'Search')).toBe(false);
  });
});
