/**
 * PostgreSQL connection URLs: recognising one, and the form of it that may be shown. The
 * password never leaves this process in a message, a log line or an event — every text
 * weft builds around a URL uses {@link maskDatabaseUrl}.
 */

export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value.trim());
}

/**
 * The URL with its password replaced by `***` (and any `password` query parameter too).
 *
 * @example maskDatabaseUrl('postgres://weft:s3cret@db:5432/weft') // → 'postgres://weft:***@db:5432/weft'
 */
export function maskDatabaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    // Unparseable: show only the scheme, never a guess at where the password ends.
    return `${/^[a-z]+:\/\//i.exec(value.trim())?.[0] ?? ''}(unparseable URL hidden)`;
  }
  if (url.password !== '') url.password = '***';
  if (url.searchParams.has('password')) url.searchParams.set('password', '***');
  return url.toString();
}
