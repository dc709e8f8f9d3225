// The shape every doctor check returns, and the environment it reads. The
// doctor diagnoses the raw environment, including the case where lib/env.ts
// refuses it, so it reads process.env here (names and lengths only, never
// values) and loads lib/env.ts lazily, catching its refusal.

export type CheckResult = {
  /** What was checked, e.g. "Gateway". */
  name: string;
  /** "warn": the app works, with less (a feature is off); "skip" when an earlier failure leaves nothing to check. */
  status: "ok" | "warn" | "fail" | "skip";
  /** One line, safe to print and to serve: never a secret's value. */
  detail: string;
  /** What to do about a failure or a warning. */
  fix?: string;
};

export const ok = (name: string, detail: string): CheckResult => ({ name, status: "ok", detail });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, status: "fail", detail, fix });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({ name, status: "warn", detail, fix });
export const skip = (name: string, detail: string): CheckResult => ({ name, status: "skip", detail });

export type RawEnvironment = Readonly<Record<string, string | undefined>>;

/** The process environment as loaded from .env* files; only for the doctor. */
export function rawEnvironment(): RawEnvironment {
  return process.env;
}

/** A variable counts as set when it is not empty, as lib/env.ts treats it. */
export const isSet = (source: RawEnvironment, name: string) => (source[name] ?? "") !== "";
