import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

/** Answers which methods exist for a path, so an unmatched method is 405 rather than 404. */
@Injectable()
export class RouteIndex {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  allowedMethods(path: string): string[] {
    const instance = this.adapterHost.httpAdapter?.getInstance<{ router?: { stack: RouterLayer[] } }>();
    const stack = instance?.router?.stack ?? [];
    const methods = new Set<string>();
    for (const layer of stack) {
      // Wildcard routes are middleware mounted for every method, not endpoints.
      if (!layer.route || layer.route.path.includes('{*') || !layer.match(path)) continue;
      for (const [method, enabled] of Object.entries(layer.route.methods)) {
        if (enabled && method !== '_all') methods.add(method.toUpperCase());
      }
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
