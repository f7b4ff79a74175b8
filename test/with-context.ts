import { testContext, type TestContext } from './harness.js';

/** Runs `fn` with a test context built from `env`, and closes the context however `fn` ends. */
export async function withContext(env: Record<string, string>, fn: (ctx: TestContext) => Promise<void>): Promise<void> {
  const ctx = await testContext(env);
  try {
    await fn(ctx);
  } finally {
    await ctx.close();
  }
}
