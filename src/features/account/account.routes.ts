import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { apiRoute } from '../../http/api-route.js';
import { objectBody, writtenOnce, type ApiBody } from '../../http/reply.js';
import type { SettledAccount } from '../../storage/store.js';
import { accountRecord } from './account.presenter.js';
import { reportedAccount, settledAccountOf } from './account.service.js';

export function accountRoutes(app: FastifyInstance, deps: Deps): void {
  // account/get is what clients poll, and the account cache hands back one read for up to
  // ACCOUNT_CACHE_SECONDS: the answer to a read is written once (docs/decisions/0007).
  const answers = new WeakMap<SettledAccount, ApiBody>();
  const answerOf = (settled: SettledAccount): ApiBody => {
    let answer = answers.get(settled);
    if (!answer) {
      answer = writtenOnce(objectBody('account', accountRecord(reportedAccount(settled))));
      answers.set(settled, answer);
    }
    return answer;
  };
  apiRoute(app, deps, {
    path: '/3/account/get.php',
    scope: 'basic',
    // An account the cache holds is answered without a promise (apiRoute's handler).
    handler: ({ auth }) => {
      const settled = settledAccountOf(deps, auth);
      return settled instanceof Promise ? settled.then(answerOf) : answerOf(settled);
    },
  });
}
