import type { CreateUserInput } from '@agora/auth';
import type { AppContext } from '../context.js';

export interface AdminCreatedUser {
  userId: string;
  /** Null when created confirmed. */
  confirmationToken: string | null;
  /** The account (actor), when a username was given. */
  accountId: string | null;
}

/**
 * The admin tool's account creation: the user and, with `username`, its account. If the account is
 * refused (a taken, reserved or malformed name) the user is removed again: nothing half-made.
 */
export async function adminCreateUser(
  ctx: AppContext,
  input: CreateUserInput & { username?: string },
): Promise<AdminCreatedUser> {
  const { user, confirmationToken } = await ctx.users.create(input);
  if (input.username === undefined) return { userId: user.id, confirmationToken, accountId: null };
  try {
    const account = await ctx.accounts.createForUser(user.id, input.username);
    return { userId: user.id, confirmationToken, accountId: account.id };
  } catch (error) {
    await ctx.users.remove(user);
    throw error;
  }
}
