// Production secrets' minimum length, in a module with no side effects so that
// the doctor can read it even when lib/env.ts refuses the environment.
// lib/env.ts enforces the same rule with these values.

/** 32 random bytes in hex is 64 characters; anything under 32 is guessable. */
export const PRODUCTION_SECRET_MIN_LENGTH = 32;

export const MAKE_SECRET = "openssl rand -hex 32";
