"use server";

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { ADMIN_COOKIE, adminCookieOptions, adminEnabled, passwordIsRight, signAdminSession } from "@/lib/admin";
import { env } from "@/lib/env";

export type AdminSignInState = { status: "idle" | "error"; message?: string };

export async function signInAdmin(_previous: AdminSignInState, formData: FormData): Promise<AdminSignInState> {
  const password = formData.get("password");
  if (!adminEnabled() || typeof password !== "string" || !passwordIsRight(password)) {
    return { status: "error", message: "That is not the admin password." };
  }
  (await cookies()).set(ADMIN_COOKIE, signAdminSession(env.ADMIN_PASSWORD!), adminCookieOptions());
  redirect("/admin");
}

export async function signOutAdmin(): Promise<void> {
  (await cookies()).delete({ name: ADMIN_COOKIE, path: "/admin" });
  redirect("/admin");
}
