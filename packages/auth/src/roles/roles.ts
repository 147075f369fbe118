/** Instance roles, each including the ones below it: USER ⊂ MODERATOR ⊂ ADMINISTRATOR. */
export const ROLES = ['USER', 'MODERATOR', 'ADMINISTRATOR'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { USER: 0, MODERATOR: 1, ADMINISTRATOR: 2 };

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether someone with `held` may do what needs `required`. */
export function roleSatisfies(held: Role, required: Role): boolean {
  return RANK[held] >= RANK[required];
}
