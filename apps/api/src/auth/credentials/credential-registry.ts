import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { CredentialKind } from '@app/common';
import { AuthenticatesCredential, CredentialAuthenticator } from './credential-authenticator';

/** Every credential authenticator of the application, found once at start. */
@Injectable()
export class CredentialRegistry implements OnModuleInit {
  private authenticators: CredentialAuthenticator[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const found = new Map<CredentialKind, CredentialAuthenticator>();
    for (const wrapper of this.discovery.getProviders({ metadataKey: AuthenticatesCredential.KEY })) {
      const kind = this.discovery.getMetadataByDecorator(AuthenticatesCredential, wrapper);
      if (kind === undefined || !wrapper.instance) continue;
      if (found.has(kind)) throw new Error(`Two authenticators claim the ${kind} credential.`);
      found.set(kind, wrapper.instance as CredentialAuthenticator);
    }
    this.authenticators = [...found.values()];
  }

  all(): readonly CredentialAuthenticator[] {
    return this.authenticators;
  }
}
