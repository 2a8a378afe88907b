/**
 * Keeps the first `limit` characters of `text` and says how many were cut, for text that
 * goes into events, questions and prompts, which are read by people and must stay small.
 *
 * @example clipText('abcdef', 4) // → 'abcd… [2 characters cut]'
 */
export function clipText(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}… [${text.length - limit} characters cut]` : text;
}
