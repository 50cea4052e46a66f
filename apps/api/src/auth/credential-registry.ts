import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { CredentialKind } from '@app/common';
import { AuthenticatesCredential, CredentialDescriptor, CredentialStrategy } from './credential';

/**
 * Every credential strategy of the application, found once at start, in the order their modules
 * are imported: error messages that list credentials list them in this order.
 */
@Injectable()
export class CredentialRegistry implements OnModuleInit {
  private strategies: CredentialStrategy[] = [];
  private readonly byKind = new Map<CredentialKind, CredentialStrategy>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: AuthenticatesCredential.KEY })) {
      if (wrapper.instance) this.register(wrapper.instance as CredentialStrategy);
    }
  }

  register(strategy: CredentialStrategy): void {
    const kind = strategy.credential.kind;
    if (this.byKind.has(kind)) throw new Error(`Two strategies claim the ${kind} credential.`);
    this.byKind.set(kind, strategy);
    this.strategies = [...this.byKind.values()];
  }

  all(): readonly CredentialStrategy[] {
    return this.strategies;
  }

  descriptorOf(kind: CredentialKind): CredentialDescriptor {
    const strategy = this.byKind.get(kind);
    if (!strategy) throw new Error(`No strategy authenticates the ${kind} credential.`);
    return strategy.credential;
  }
}
