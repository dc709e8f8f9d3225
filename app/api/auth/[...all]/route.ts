// Better Auth's endpoints: email-link verification, passkeys, OAuth callbacks,
// sessions (lib/auth/auth.ts), each request with the client's address as the
// app resolves it.
import { handleAuthRequest } from "@/lib/auth/auth";

export const GET = handleAuthRequest;
export const POST = handleAuthRequest;
