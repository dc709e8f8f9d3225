import "server-only";
import { prisma } from "@/lib/db";

export async function checkDatabase(): Promise<boolean> {
  try {
    await prisma.$queryRawUnsafe("SELECT 1");
    return true;
  } catch (error) {
    console.error("[framehook] database health check failed", error);
    return false;
  }
}
