import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { apiRoute } from '../../http/api-route.js';
import { objectBody } from '../../http/reply.js';
import { accountRecord } from './account.presenter.js';
import { getAccount } from './account.service.js';

export function accountRoutes(app: FastifyInstance, deps: Deps): void {
  apiRoute(app, deps, {
    path: '/3/account/get.php',
    scope: 'basic',
    handler: async ({ auth }) => objectBody('account', accountRecord(await getAccount(deps, auth))),
  });
}
