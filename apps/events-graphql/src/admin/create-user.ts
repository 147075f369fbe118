import type { CreateUserInput } from '@agora/auth';
import type { AppContext } from '../context.js';

export interface AdminCreatedUser {
  userId: string;
  /** Null when created confirmed. */
  confirmationToken: string | null;
  /** The first profile, when a username was given. */
  profileId: string | null;
}

/**
 * The admin tool's account creation: the user and, with `username`, its first profile (the default
 * identity). If the profile is refused (a taken or malformed name) the user is removed again, so
 * nothing is left half-made.
 */
export async function adminCreateUser(
  ctx: AppContext,
  input: CreateUserInput & { username?: string },
): Promise<AdminCreatedUser> {
  const { user, confirmationToken } = await ctx.accounts.create(input);
  if (input.username === undefined) return { userId: user.id, confirmationToken, profileId: null };
  try {
    const profile = await ctx.persons.create(user, {
      preferredUsername: input.username,
      name: '',
      summary: '',
    });
    return { userId: user.id, confirmationToken, profileId: profile.id };
  } catch (error) {
    await ctx.accounts.remove(user);
    throw error;
  }
}
