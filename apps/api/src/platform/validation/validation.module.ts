import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ValidatedParameterCheck } from './validated-parameter.check';

/**
 * Validation is declared on each handler parameter (`@ValidBody()`, `@ValidQuery()`); this
 * module makes a start fail when a DTO parameter lacks the declaration.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [ValidatedParameterCheck],
})
export class ValidationModule {}
