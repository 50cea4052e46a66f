import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing';

/** Exports the last spans when the application stops, after the requests in flight have ended. */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
