/**
 * A collector's OTLP/HTTP endpoint that accepts every export and keeps nothing, so that the
 * benchmark prices making and sending spans, not a collector's work. It answers an empty
 * success in the encoding it was sent (protobuf by default, JSON with http/json).
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const json = (req.headers['content-type'] ?? '').includes('json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});
server.listen(Number(process.env.PORT ?? 4318), '127.0.0.1');
