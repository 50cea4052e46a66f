import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { httpRequestOf, httpResponseOf } from './http-arguments';

describe('the arguments of an HTTP call', () => {
  it("are the request and the response Nest's switchToHttp() gives, without assigning to the context", () => {
    const req = { url: '/v2/users/me' };
    const res = { statusCode: 200 };
    const context = new ExecutionContextHost([req, res, () => undefined]);
    const ownKeys = Object.keys(context);
    expect(httpRequestOf(context)).toBe(req);
    expect(httpResponseOf(context)).toBe(res);
    expect(Object.keys(context)).toEqual(ownKeys);
    const http = context.switchToHttp();
    expect(httpRequestOf(context)).toBe(http.getRequest());
    expect(httpResponseOf(context)).toBe(http.getResponse());
  });
});
