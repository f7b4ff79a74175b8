/**
 * A whole-number setting of the long-running test programs (npm run fuzz, npm run crashloop):
 * the command-line value, else the environment variable, else the default; anything else stops
 * the program with one line naming the variable.
 */
export function wholeSetting(program: string, arg: string | undefined, env: string, fallback: number): number {
  const text = arg ?? process.env[env];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`${program}: ${env} must be a whole number, not ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}
