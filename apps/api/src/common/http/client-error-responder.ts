import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's own answers to requests it cannot parse, in the service's error envelope. */
const PARSE_FAILURES: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'invalid_request',
    message: 'The request line and headers exceed 16 KiB.',
  },
};
const MALFORMED = { status: 400, reason: 'Bad Request', code: 'invalid_request', message: 'The request is not valid HTTP.' };

/**
 * Requests that never reach Express (an oversized header block, a malformed request line) are
 * answered by Node's parser with a bare status; this answers them in the envelope instead.
 */
export function answerClientErrorsInEnvelope(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const failure = PARSE_FAILURES[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ error: { code: failure.code, message: failure.message } });
    socket.end(
      `HTTP/1.1 ${failure.status} ${failure.reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
