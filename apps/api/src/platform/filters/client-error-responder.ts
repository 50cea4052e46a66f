import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, newId } from '@app/common';
import { errorAnswerFor } from './app-exception.filter';

/** Node's own answers to requests it cannot parse, in the service's error forms. */
const PARSE_FAILURES: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'The request line and headers exceed 16 KiB.',
  },
};
const MALFORMED = { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP.' };

/** The path of the request line, when the bytes the parser refused begin with one. */
function requestPath(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const requestLine = /^[A-Z]+ ([^ ?]+)/.exec(rawPacket.subarray(0, 2048).toString('latin1'));
  return requestLine?.[1];
}

/**
 * Requests that never reach Express (an oversized header block, a malformed request line) are
 * answered by Node's parser with a bare status; this answers them as a routed error would be:
 * the RFC 6749 form on the authorization server's endpoints, the envelope everywhere else, and
 * an `X-Request-ID` of its own (docs/api.md#errors: every response carries one; the request's own
 * header is among the bytes that could not be read).
 */
export function answerClientErrorsInEnvelope(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const failure = PARSE_FAILURES[error.code ?? ''] ?? MALFORMED;
    const answer = errorAnswerFor(requestPath(error.rawPacket) ?? '', new AppError('invalid_request', failure.message));
    const body = JSON.stringify(answer.body);
    socket.end(
      `HTTP/1.1 ${failure.status} ${failure.reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-ID: ${newId('req')}\r\n` +
        (answer.noStore ? 'Cache-Control: no-store\r\n' : '') +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
