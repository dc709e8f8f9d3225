"use client";
// Better Auth's browser client: passkeys (sign in, add, rename, remove) and
// OAuth redirects. Email links go through the sign-in page's server action.
import { passkeyClient } from "@better-auth/passkey/client";
import { createAuthClient } from "better-auth/react";

export const authClient = createAuthClient({ basePath: "/api/auth", plugins: [passkeyClient()] });

/** Where every sign-in lands: the claim prompt, which sends on home when the guest made nothing. */
export const AFTER_SIGN_IN = "/welcome";
