import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A sample file of test/fixtures/hosted, written by hand from the columns docs/moving.md lists. */
export function hostedFixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../test/fixtures/hosted/${name}`, import.meta.url)), 'utf8');
}
