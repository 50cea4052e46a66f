import Redis, { Command } from 'ioredis';
import { DatabaseCall, inDatabaseSpan, inRecordingSpan } from '@app/telemetry';
import type { RedisClient } from './redis-client';

/**
 * A Redis command as its span names it: the command alone, never its keys or arguments (keys
 * name sessions and revocations, which are credentials); the server for a single server, none for
 * a cluster, whose commands go to the node of their key.
 */
export function redisCall(client: RedisClient, command: string): DatabaseCall {
  const name = command.toUpperCase();
  const call: DatabaseCall = { system: 'redis', operation: name, queryText: name };
  if (!(client instanceof Redis) || !client.options.host) return call;
  return { ...call, server: { address: client.options.host, port: client.options.port } };
}

/** How ioredis hands each command to a client, single server or cluster. */
interface CommandSender {
  sendCommand(command: Command, ...routing: unknown[]): unknown;
}

/**
 * Gives each command `client` sends in a recorded span a span of its own, ended when Redis
 * answers. Commands of a pipeline or transaction are left to whoever queued them: the API's
 * Redis batch (RedisPipelineBatch) sends many requests' commands in one pipeline, and gives each
 * request's item a span in that request's trace instead. Outside a recorded span a command costs
 * one check.
 */
export function traceRedisCommands<Client extends RedisClient>(client: Client): Client {
  const sender = client as unknown as CommandSender;
  const send = sender.sendCommand.bind(sender);
  sender.sendCommand = (command, ...routing) => {
    if (command.pipelineIndex !== undefined || command.inTransaction || !inRecordingSpan()) return send(command, ...routing);
    // The caller awaits the command and sees its failure; the span only records it.
    inDatabaseSpan(() => redisCall(client, command.name), () => command.promise).catch(() => undefined);
    return send(command, ...routing);
  };
  return client;
}
