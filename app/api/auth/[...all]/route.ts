// Better Auth's endpoints: passkeys, OAuth callbacks, sessions (email links
// are used by the link page's action, app/sign-in/link) (lib/auth/auth.ts), each request with the client's address as the
// app resolves it.
import { handleAuthRequest } from "@/lib/auth/auth";

export const GET = handleAuthRequest;
export const POST = handleAuthRequest;
