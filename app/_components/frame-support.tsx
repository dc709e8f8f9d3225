"use client";
// Whether this server can take a frame from a video, as the page learned it
// (lib/media/frame-support.ts): without FFmpeg the frame actions take the
// frame in the browser instead, and say so beside them.
import { createContext, useContext } from "react";

const FramesUnavailable = createContext<string | null>(null);

/** `reason`: why the server cannot take frames here, or null when it can. */
export function FrameSupport({ reason, children }: { reason: string | null; children: React.ReactNode }) {
  return <FramesUnavailable value={reason}>{children}</FramesUnavailable>;
}

/** Why the server takes no frames here (the browser does), or null when it does. */
export const useFramesUnavailable = () => useContext(FramesUnavailable);
