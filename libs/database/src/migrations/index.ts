import { CreateAccounts1763700000000 } from './1763700000000-CreateAccounts';

/** Every migration in order; a new migration is appended here. */
export const MIGRATIONS = [CreateAccounts1763700000000];
