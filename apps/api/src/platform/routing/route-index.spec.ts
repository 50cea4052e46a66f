import type { HttpAdapterHost } from '@nestjs/core';
import { RouteIndex } from './route-index';

/** An express router stack of the given routes, as `path-to-regexp` would match them (case-insensitive, not strict). */
function indexOf(routes: Array<[path: string, methods: string[]]>): RouteIndex {
  const stack = routes.map(([path, methods]) => {
    const pattern = new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}/?$`, 'i');
    return { route: { path, methods: Object.fromEntries(methods.map((method) => [method, true])) }, match: (candidate: string) => pattern.test(candidate) };
  });
  const adapterHost = { httpAdapter: { getInstance: () => ({ router: { stack } }) } } as unknown as HttpAdapterHost;
  return new RouteIndex(adapterHost);
}

describe('RouteIndex', () => {
  const routes = indexOf([
    ['/v2/resources/bulk', ['post']],
    ['/v2/resources/bulk', ['patch']],
    ['/v2/resources/:id', ['get', 'put', 'patch', 'delete']],
    ['/v2/users/me', ['get']],
  ]);

  it('lets a literal path shadow the templated ones it also matches', () => {
    expect(routes.allowedMethods('/v2/resources/bulk')).toEqual(['PATCH', 'POST']);
    expect(routes.allowedMethods('/v2/resources/res_1')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
  });

  it('tells a method a literal path lacks, whatever the case and a trailing slash', () => {
    expect(routes.isShadowedMethod('PUT', '/v2/resources/bulk')).toBe(true);
    expect(routes.isShadowedMethod('GET', '/V2/Resources/Bulk/')).toBe(true);
    expect(routes.isShadowedMethod('POST', '/v2/resources/bulk')).toBe(false);
    expect(routes.isShadowedMethod('HEAD', '/v2/users/me')).toBe(false);
    expect(routes.isShadowedMethod('PUT', '/v2/resources/res_1')).toBe(false);
  });
});
