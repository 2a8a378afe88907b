import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, stripNonContent } from './html-to-markdown.js';

describe('stripNonContent', () => {
  it('drops scripts, styles and friends with their content, whatever the case', () => {
    const html =
      '<p>a</p><SCRIPT type="x">if (a<b) x("</p>")</Script ><style>p{}</style><p>b</p>' +
      '<noscript>n</noscript><template><i>t</i></template><iframe src="/f">f</iframe><p>c</p>';
    expect(stripNonContent(html)).toBe('<p>a</p><p>b</p><p>c</p>');
  });

  it('keeps elements that merely start with a stripped name', () => {
    expect(stripNonContent('<scripts>kept</scripts><styles>kept</styles>')).toBe('<scripts>kept</scripts><styles>kept</styles>');
  });

  it('treats an unclosed script as running to the end, like the HTML tokenizer', () => {
    expect(stripNonContent('<p>a</p><script>var x = 1; <p>not text</p>')).toBe('<p>a</p>');
    expect(stripNonContent('<p>a</p><script')).toBe('<p>a</p>');
  });

  it('searches each character of pathological input at most once (no clock: it counts the spans it searched)', () => {
    for (const html of [
      '<script '.repeat(100_000),
      '<script>'.repeat(100_000),
      '<style></style>x'.repeat(100_000),
      '<p>a</p><script>x</script>'.repeat(50_000),
    ]) {
      const spans: [number, number][] = [];
      stripNonContent(html, (from, to) => spans.push([from, to]));
      const searched = spans.reduce((sum, [from, to]) => sum + (to - from), 0);
      expect(searched).toBeLessThanOrEqual(html.length);
      // Each search starts at or after where the previous one ended: the work cannot grow faster than the page.
      const overlapping = spans.filter(([from], index) => index > 0 && from < spans[index - 1]![1]);
      expect(overlapping).toEqual([]);
    }
  });
});

describe('htmlToMarkdown', () => {
  it('converts headings, links and images with absolute URLs', () => {
    const { markdown } = htmlToMarkdown(
      '<h1>T</h1><p><a href="b/c?x=1" title="Tip">link</a> <a href="#frag">here</a> <img src="/i.png" alt="pic"></p>',
      { baseUrl: 'https://example.com/a/page.html' },
    );
    expect(markdown).toBe('# T\n\n[link](https://example.com/a/b/c?x=1 "Tip") [here](#frag) ![pic](https://example.com/i.png)');
  });

  it('converts only as much of a huge page as the target needs, and says how much', () => {
    const paragraph = '<p>0123456789</p>';
    const html = paragraph.repeat(100_000); // 1.7 M characters, 12 bytes of Markdown each
    const result = htmlToMarkdown(html, { targetBytes: 1000 });
    expect(result.totalChars).toBe(html.length);
    expect(result.convertedChars).toBeLessThan(html.length);
    expect(result.convertedChars).toBeGreaterThan(0);
    expect(Buffer.byteLength(result.markdown)).toBeGreaterThan(1000);
  });

  it('widens the prefix until the target is met', () => {
    // 300 K characters of markup-only HTML before any text: the first prefix yields nothing.
    const html = '<div></div>'.repeat(30_000) + '<p>late text</p>'.repeat(1_000);
    const result = htmlToMarkdown(html, { targetBytes: 100 });
    expect(result.markdown).toContain('late text');
  });

  it('converts a page without a target completely', () => {
    const result = htmlToMarkdown('<p>one</p><p>two</p>');
    expect(result).toEqual({ markdown: 'one\n\ntwo', convertedChars: 20, totalChars: 20 });
  });
});
