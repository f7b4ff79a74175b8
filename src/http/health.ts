import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

/**
 * Two answers for whoever runs the process. `/healthz` (liveness): the process and its database
 * answer; it stays 200 in maintenance mode, when the API answers 503 on purpose, so a supervisor
 * does not restart a server that is fine. `/readyz` (readiness, for load balancers): whether this
 * instance should get traffic: the database reachable, every migration applied, not in
 * maintenance; 503 with the reasons otherwise.
 */
export function healthRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/healthz', { config: { kind: 'api' } }, async function health(_request, reply) {
    await deps.store.read.accounts.get(0);
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });

  app.get('/readyz', { config: { kind: 'api' } }, async function ready(_request, reply) {
    const problems: string[] = [];
    if (deps.config.maintenance) problems.push('maintenance mode is on (MAINTENANCE_MODE)');
    try {
      const { pending } = await deps.store.migrationStatus();
      if (pending.length > 0) problems.push(`migrations not applied: ${pending.join(', ')} (bin/tickler migrate)`);
    } catch {
      problems.push('the database does not answer');
    }
    reply.header('cache-control', 'no-store').status(problems.length === 0 ? 200 : 503);
    return reply.send(problems.length === 0 ? { status: 'ready' } : { status: 'unavailable', problems });
  });
}
