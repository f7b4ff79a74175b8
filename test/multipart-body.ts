/** multipart/form-data bodies for app.inject, written out by hand so tests control every byte. */

export const BOUNDARY = 'tickler-boundary';

/** One part; with a file name it is a file part (text/plain). */
export function part(name: string, value: string, filename?: string): string {
  const disposition = `form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`;
  return `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${filename ? 'Content-Type: text/plain\r\n' : ''}\r\n${value}\r\n`;
}

/** The closing delimiter that ends a body. */
export const CLOSING = `--${BOUNDARY}--\r\n`;

export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A complete body with one field part per entry, in order, and its Content-Type. */
export function multipartBody(fields: Readonly<Record<string, string>>): { payload: string; contentType: string } {
  return { payload: Object.entries(fields).map(([k, v]) => part(k, v)).join('') + CLOSING, contentType: CONTENT_TYPE };
}
