import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderAuthorizationDoc } from '../test/authorization-matrix';

/** Writes docs/authorization.md from the authorization matrix the e2e suite checks. */
writeFileSync(resolve(__dirname, '../docs/authorization.md'), renderAuthorizationDoc());
