// The signed-in account of a request, if any: Better Auth's session cookie,
// checked against the session table. A request without that cookie (every
// guest) costs no read and never loads Better Auth.
import "server-only";
import type { Transaction } from "@/lib/db";

/** The owner id an account's rows carry (generations, uploads, credits): one place says it. */
export const accountOwnerId = (userId: string) => `user:${userId}`;

const ACCOUNT_PREFIX = "user:";

/** Whether `ownerId` is an account's (a guest's is its visitor id): only an account can be deleted. */
export const isAccountOwner = (ownerId: string) => ownerId.startsWith(ACCOUNT_PREFIX);

/** The account's user id of an account's owner id; null for a guest's. */
export const accountUserIdOf = (ownerId: string) => (isAccountOwner(ownerId) ? ownerId.slice(ACCOUNT_PREFIX.length) : null);

/**
 * Whether `ownerId` is an account that was deleted: nothing may be written for
 * it. Read under the owner's credit lock, which deletion holds while it
 * deletes and records the deletion (lib/viewer/delete-account.ts): a write
 * that waited for it then finds the record. A guest is never "deleted", nor
 * an account the kit's users table never held (a fork's own sign-in).
 */
export async function isDeletedAccount(db: Pick<Transaction, "deletedAccount">, ownerId: string): Promise<boolean> {
  const userId = accountUserIdOf(ownerId);
  if (userId === null) return false;
  return (await db.deletedAccount.findUnique({ where: { userId }, select: { userId: true } })) !== null;
}

export type AccountSession = { userId: string; email: string; emailVerified: boolean; name: string; sessionId: string };

/** Better Auth's session cookie, with or without the __Secure- prefix it takes over https. */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=/;

export const hasSessionCookie = (cookieHeader: string | null) => cookieHeader !== null && SESSION_COOKIE.test(cookieHeader);

/**
 * `renew`: the caller can set cookies (a route handler, a server action), so a
 * session used past its renewal age is extended, in its row and its cookie
 * together (Better Auth's next-cookies plugin sets it). Pages cannot set
 * cookies: there the row is left as it is, so that it never outlives its cookie.
 */
export async function readAccountSession(headers: Headers, { renew = false }: { renew?: boolean } = {}): Promise<AccountSession | null> {
  if (!hasSessionCookie(headers.get("cookie"))) return null;
  const { auth } = await import("./auth");
  const found = await auth.api.getSession({ headers, query: { disableRefresh: !renew } });
  if (!found) return null;
  return { userId: found.user.id, email: found.user.email, emailVerified: found.user.emailVerified, name: found.user.name, sessionId: found.session.id };
}
