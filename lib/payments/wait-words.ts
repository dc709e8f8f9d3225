// How long to wait, in words a person reads: "40 seconds", "3 minutes".
// Shared by the server's messages and the success page's client component.
export function waitWords(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}
