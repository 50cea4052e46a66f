import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ConflictError, Plan, PLANS, ResourceNotFoundError, ValidationError } from '@app/common';
import { UserRepository } from '../auth/user.repository';
import { RegisterDto } from '../users/dto/register.dto';
import { toFieldProblems } from '../platform/validation/validation-problems';
import { UserView } from '../users/user.view';
import { UsersService } from '../users/users.service';

export interface AdminAccountInput {
  email: string;
  /** Needed to create; an account that is only promoted keeps its own. */
  password?: string;
  username?: string;
  /** Make an existing account with this email admin; without it an existing email is refused. */
  promoteExisting?: boolean;
}

/** Operator actions on accounts: the first admin and plan changes outside the HTTP API. */
@Injectable()
export class AccountAdministration {
  constructor(
    private readonly users: UserRepository,
    private readonly usersService: UsersService,
  ) {}

  /**
   * Creates an admin. An email that already has an account is refused unless the operator asks
   * to promote it: whoever registered an address first must not become admin by accident.
   */
  async createAdmin(input: AdminAccountInput): Promise<{ user: UserView; created: boolean }> {
    const existing = await this.users.findByEmail(input.email.trim().toLowerCase());
    if (existing && input.promoteExisting) {
      return { user: await this.usersService.changeAccount(existing.id, { role: 'admin' }), created: false };
    }
    if (existing) {
      throw new ConflictError(`${input.email} already has an account; pass --promote-existing to make that account an admin.`);
    }
    const account = plainToInstance(RegisterDto, {
      email: input.email,
      password: input.password,
      username: input.username ?? usernameFromEmail(input.email),
    });
    const problems = toFieldProblems(await validate(account, { forbidUnknownValues: true }));
    if (problems.length > 0) throw new ValidationError(problems, 'The input has invalid fields.');
    return { user: await this.usersService.create(account, 'admin'), created: true };
  }

  async setPlan(email: string, plan: string): Promise<UserView> {
    if (!isPlan(plan)) throw ValidationError.field('plan', `must be one of ${PLANS.join(', ')}`);
    const user = await this.users.findByEmail(email);
    if (!user) throw new ResourceNotFoundError('User', email);
    return this.usersService.changeAccount(user.id, { plan });
  }
}

function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** `Ada.Lovelace@example.com` → `ada_lovelace`; then validated like a registered username. */
function usernameFromEmail(email: string): string {
  return email.split('@')[0].toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 30);
}
