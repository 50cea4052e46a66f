import { Global, Module } from '@nestjs/common';
import { AppExceptionFilter } from './app-exception.filter';

/**
 * The one AppExceptionFilter of the app: registered as the global filter by AppModule, and
 * injected by filters that decide something first (the rate-limit filter) and then render.
 */
@Global()
@Module({
  providers: [AppExceptionFilter],
  exports: [AppExceptionFilter],
})
export class ErrorRenderingModule {}
