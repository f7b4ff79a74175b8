import { createDeps, type Deps } from '../deps.js';
import { emailKey } from '../features/users/users.service.js';
import { runImport, type ImportSummary } from '../features/moving/import.service.js';
import type { ImportSource } from '../features/moving/import-source.js';
import { V3Client } from '../features/moving/v3-client.js';
import { V3Source } from '../features/moving/v3-source.js';
import { systemClock } from '../lib/clock.js';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { authorize } from './authorize.js';
import { NoSuchAccount } from './kit.js';
import { ImportProgress } from './progress.js';


/** The local account an import writes into, by its e-mail address. */
export async function accountPk(store: Store, email: string): Promise<number> {
  const found = await store.read.accounts.credentialsByEmail(emailKey(email));
  if (!found) throw new NoSuchAccount(`--user: no account with the e-mail address ${email} (bin/tickler user add creates one)`);
  return found.pk;
}

export interface V3ImportArgs {
  readonly user: string;
  readonly from: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string | undefined;
}

/** Runs an import with a progress display; returns the summary with the run's figures. */
export async function importWithProgress(deps: Deps, userPk: number, source: ImportSource, options: { dryRun: boolean; progress: ImportProgress }): Promise<ImportSummary & { seconds: number }> {
  const started = Date.now();
  try {
    const summary = await runImport(deps, userPk, source, { dryRun: options.dryRun, onProgress: (kind, done, total) => options.progress.update(kind, done, total) });
    return { ...summary, seconds: Math.round((Date.now() - started) / 100) / 10 };
  } finally {
    options.progress.stop();
  }
}

/** bin/tickler import v3: authorize at the source, then copy everything into the local account. */
export async function importV3(config: Config, store: Store, a: V3ImportArgs): Promise<ImportSummary & { seconds: number; requests: number }> {
  const userPk = await accountPk(store, a.user);
  const base = a.from.replace(/\/+$/, '');
  const progress = new ImportProgress();
  const tokens = await authorize({ base, clientId: a.clientId, clientSecret: a.clientSecret, redirectUri: a.redirectUri, say: (line) => progress.say(line) });
  const client = new V3Client({ base, clientId: a.clientId, clientSecret: a.clientSecret, tokens, onWait: (s, why) => progress.say(`${why}: waiting ${s} s`) });
  const deps = createDeps(config, store, systemClock);
  const summary = await importWithProgress(deps, userPk, new V3Source(client, base), { dryRun: false, progress });
  return { ...summary, requests: client.requests };
}
