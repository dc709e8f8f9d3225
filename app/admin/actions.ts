"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { ADMIN_COOKIE, adminCookieOptions, attemptAdminSignIn, signAdminSession } from "@/lib/viewer/admin";
import { env } from "@/lib/env";
import { visitorAddress } from "@/lib/rate-limit";

export type AdminSignInState = { status: "idle" | "error"; message?: string };

export async function signInAdmin(_previous: AdminSignInState, formData: FormData): Promise<AdminSignInState> {
  const outcome = await attemptAdminSignIn({ password: formData.get("password"), address: visitorAddress(await headers()) });
  if (!outcome.ok) return { status: "error", message: outcome.message };
  (await cookies()).set(ADMIN_COOKIE, signAdminSession(env.ADMIN_PASSWORD!), adminCookieOptions());
  redirect("/admin");
}

export async function signOutAdmin(): Promise<void> {
  (await cookies()).delete({ name: ADMIN_COOKIE, path: "/admin" });
  redirect("/admin");
}
