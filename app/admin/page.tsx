// GET /admin – the operators' console: how to turn it on, the sign-in, or the console itself.
import type { Metadata } from "next";
import { cookies } from "next/headers";
import { AdminConsole } from "@/components/admin/admin-console";
import { ConsoleDisabled } from "@/components/admin/console-disabled";
import { SignInForm } from "@/components/admin/sign-in-form";
import { SESSION_COOKIE } from "@/lib/http/admin-auth";
import { sessionOfCookie } from "@/lib/http/with-admin";
import { getServices } from "@/lib/services";

export const metadata: Metadata = { title: "Operators' console", robots: { index: false, follow: false } };

export default async function AdminPage() {
  const svc = getServices();
  const admin = svc.config.admin;
  if (!admin) return <ConsoleDisabled />;
  const session = await sessionOfCookie((await cookies()).get(SESSION_COOKIE)?.value, svc);
  if (session === null) return <SignInForm />;
  return <AdminConsole expiresAt={new Date(session.expiresAt).toISOString()} mailEnabled={Boolean(svc.config.mail)} />;
}
