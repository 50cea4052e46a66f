/**
 * What other contexts' statements may read of `users`, as a derived table to join: the id, the
 * email in lower case (the form its unique index holds) and whether the account is a platform
 * admin. PostgreSQL inlines it, so a join on it uses the indexes of `users`.
 */
export const USER_ACCOUNTS = `(SELECT id, lower(email) AS email, role = 'admin' AS is_admin FROM users)`;
