import type { FastifyInstance, HTTPMethods } from 'fastify';

/** One method of one registered path, as the router holds it (`:name` and `*` left in). */
export interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

const LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/u;

/**
 * Every method of every path the app serves, read from the router itself (`printRoutes()`, the
 * radix tree with one segment per line), so that a route added later is fuzzed without anyone
 * listing it. Each entry is checked back with `hasRoute()`: a listing this reader misunderstood
 * fails loudly instead of leaving a route out.
 */
export function registeredRoutes(app: FastifyInstance): RouteEntry[] {
  const stack: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of app.printRoutes().split('\n')) {
    if (line.trim() === '') continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`cannot read the route listing line ${JSON.stringify(line)}`);
    const depth = (m[1] as string).length / 4;
    stack.length = depth;
    const url = (stack[depth - 1] ?? '') + (m[2] as string);
    stack.push(url);
    for (const method of m[3]?.split(',').map((s) => s.trim()) ?? []) routes.push({ method, url });
  }
  for (const r of routes) {
    if (!app.hasRoute({ method: r.method as HTTPMethods, url: r.url })) throw new Error(`the route listing names ${r.method} ${r.url}, which the app does not have`);
  }
  if (routes.length === 0) throw new Error('the app lists no routes');
  return routes;
}

/** A concrete URL for a route pattern: parameters and wildcards filled with `fill`. */
export function concreteUrl(pattern: string, fill: string): string {
  return pattern.replace(/:[^/]+|\*/g, encodeURIComponent(fill) || 'x');
}
