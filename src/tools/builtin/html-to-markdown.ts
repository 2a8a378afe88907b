/**
 * HTML → Markdown for `web_fetch`, with turndown. Scripts, styles and other non-content
 * elements are dropped; links and images are made absolute against the page URL. Huge pages
 * are converted only as far as needed to fill the output budget, because converting
 * megabytes of HTML takes seconds.
 */
import TurndownService from 'turndown';

/** Elements whose content is never page text. */
const STRIPPED = ['script', 'style', 'noscript', 'template', 'iframe'] as const;

/** The start of an opening tag of a stripped element. */
const STRIPPED_OPEN = '<(script|style|noscript|template|iframe)(?=[\\s/>]|$)';

/** The parts of an element turndown hands to rules; the package types use DOM types we do not load. */
interface ElementLike {
  nodeName: string;
  getAttribute(name: string): string | null;
}

export interface MarkdownConversion {
  markdown: string;
  /** Characters of (stripped) HTML that were converted. */
  convertedChars: number;
  /** Characters of (stripped) HTML in total. */
  totalChars: number;
}

export interface ConvertOptions {
  /** Page URL, to make relative links and image sources absolute. */
  baseUrl?: string;
  /**
   * Stop converting once the Markdown exceeds this many bytes (the caller caps its output
   * there anyway). Without it the whole page is converted.
   */
  targetBytes?: number;
  /** Never convert more than this many characters of HTML; default 2 Mi (about two seconds of work). */
  maxHtmlChars?: number;
}

const DEFAULT_MAX_HTML_CHARS = 2 * 1024 * 1024;

export function htmlToMarkdown(html: string, options: ConvertOptions = {}): MarkdownConversion {
  const service = createService(options.baseUrl);
  const stripped = stripNonContent(html);
  const totalChars = stripped.length;
  const maxHtmlChars = options.maxHtmlChars ?? DEFAULT_MAX_HTML_CHARS;
  const target = options.targetBytes;

  if (target === undefined && totalChars <= maxHtmlChars) {
    return { markdown: clean(service.turndown(stripped)), convertedChars: totalChars, totalChars };
  }

  // Convert a prefix; when it does not yield enough Markdown, try a prefix four times as long.
  let budget = Math.min(maxHtmlChars, Math.max(256 * 1024, (target ?? maxHtmlChars) * 4));
  for (;;) {
    const slice = prefixAtTagBoundary(stripped, budget);
    const markdown = clean(service.turndown(slice));
    const complete = slice.length === totalChars;
    const enough = target !== undefined && Buffer.byteLength(markdown, 'utf8') > target;
    if (complete || enough || budget >= maxHtmlChars) {
      return { markdown, convertedChars: slice.length, totalChars };
    }
    budget = Math.min(maxHtmlChars, budget * 4);
  }
}

function createService(baseUrl: string | undefined): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  service.remove([...STRIPPED]);
  service.addRule('title', {
    filter: 'title',
    replacement: (content) => (content.trim() ? `Title: ${content.trim()}\n\n` : ''),
  });
  service.addRule('absoluteLink', {
    filter: (node) => (node as unknown as ElementLike).nodeName === 'A' && !!(node as unknown as ElementLike).getAttribute('href'),
    replacement: (content, node) => {
      const element = node as unknown as ElementLike;
      const href = absolute(element.getAttribute('href') ?? '', baseUrl).replace(/([()])/g, '\\$1');
      const title = element.getAttribute('title');
      const titlePart = title ? ` "${title.replace(/"/g, '\\"')}"` : '';
      return `[${content}](${href}${titlePart})`;
    },
  });
  service.addRule('absoluteImage', {
    filter: 'img',
    replacement: (_content, node) => {
      const element = node as unknown as ElementLike;
      const src = element.getAttribute('src');
      if (!src) return '';
      const alt = (element.getAttribute('alt') ?? '').replace(/[\r\n]+/g, ' ');
      return `![${alt}](${absolute(src, baseUrl).replace(/([()])/g, '\\$1')})`;
    },
  });
  return service;
}

function absolute(reference: string, baseUrl: string | undefined): string {
  const trimmed = reference.trim();
  if (!baseUrl || trimmed.startsWith('#')) return trimmed;
  try {
    return new URL(trimmed, baseUrl).href;
  } catch {
    return trimmed;
  }
}

/**
 * Drops the stripped elements with their content before parsing (turndown removes them again
 * from the DOM, which also catches what this pass misses). Like the HTML tokenizer, a script or
 * style runs to its first matching close tag, or to the end of the document when there is none.
 * Linear in the length of the page: every search starts where the previous one ended, so no
 * character is searched twice. `onSearch` is told each search's span (from, to), which is how
 * the tests count the work without a clock.
 */
export function stripNonContent(html: string, onSearch?: (from: number, to: number) => void): string {
  const opener = new RegExp(STRIPPED_OPEN, 'gi');
  const parts: string[] = [];
  let position = 0;
  const search = (from: number, found: number, length: number): number => {
    onSearch?.(from, found < 0 ? html.length : found + length);
    return found;
  };
  for (;;) {
    opener.lastIndex = position;
    const open = opener.exec(html);
    search(position, open ? open.index : -1, open ? open[0].length : 0);
    if (!open) break;
    parts.push(html.slice(position, open.index));
    const openFrom = open.index + open[0].length;
    const openEnd = search(openFrom, html.indexOf('>', openFrom), 1);
    if (openEnd < 0) return parts.join('');
    const closer = new RegExp(`</${open[1]!}(?=[\\s/>]|$)`, 'gi');
    closer.lastIndex = openEnd + 1;
    const close = closer.exec(html);
    search(openEnd + 1, close ? close.index : -1, close ? close[0].length : 0);
    if (!close) return parts.join('');
    const closeFrom = close.index + close[0].length;
    const closeEnd = search(closeFrom, html.indexOf('>', closeFrom), 1);
    if (closeEnd < 0) return parts.join('');
    position = closeEnd + 1;
  }
  parts.push(html.slice(position));
  return parts.join('');
}

/** A prefix of at most `limit` characters that does not end inside a tag. */
function prefixAtTagBoundary(html: string, limit: number): string {
  if (html.length <= limit) return html;
  const lastTag = html.lastIndexOf('<', limit);
  return html.slice(0, lastTag > 0 ? lastTag : limit);
}

/** Collapses the runs of blank lines that removed elements leave behind. */
function clean(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}
