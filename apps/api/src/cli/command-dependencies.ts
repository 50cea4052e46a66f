import { INestApplicationContext, Injectable, OnApplicationShutdown, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@app/config';

/**
 * The services a command works with, made when the command runs rather than when the CLI starts:
 * `--help` and a mistyped option need no configuration, database or Redis, and `db:prepare`
 * opens no connection to a database that may not exist yet. Each module is made once per run and
 * closed with the CLI.
 */
@Injectable()
export class CommandDependencies implements OnApplicationShutdown {
  private readonly contexts = new Map<Type<unknown>, Promise<INestApplicationContext>>();

  /** `service`, from an application context of `module`. */
  async get<T>(module: Type<unknown>, service: Type<T>): Promise<T> {
    let context = this.contexts.get(module);
    if (context === undefined) {
      // Validated before Nest starts the module: a bad setting then ends the command with its
      // message alone, where Nest would log it again with a stack.
      loadConfig();
      context = NestFactory.createApplicationContext(module, { logger: ['error', 'warn'], abortOnError: false });
      this.contexts.set(module, context);
    }
    return (await context).get(service);
  }

  async onApplicationShutdown(): Promise<void> {
    const made = await Promise.allSettled(this.contexts.values());
    await Promise.all(made.flatMap((context) => (context.status === 'fulfilled' ? [context.value.close()] : [])));
  }
}
