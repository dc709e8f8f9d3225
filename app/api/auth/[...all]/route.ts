// Better Auth's endpoints: email-link verification, passkeys, OAuth callbacks,
// sessions (lib/auth/auth.ts).
import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/auth/auth";

export const { GET, POST } = toNextJsHandler(auth);
