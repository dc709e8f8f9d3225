"use client";
// Whether this server can take a frame from a video, as the page learned it
// (lib/media/frame-support.ts): without FFmpeg the frame actions stay in
// place, disabled, with the reason beside them.
import { createContext, useContext } from "react";

const FramesUnavailable = createContext<string | null>(null);

/** `reason`: why frames cannot be taken here, or null when they can. */
export function FrameSupport({ reason, children }: { reason: string | null; children: React.ReactNode }) {
  return <FramesUnavailable value={reason}>{children}</FramesUnavailable>;
}

/** Why the frame actions are disabled here, or null when they work. */
export const useFramesUnavailable = () => useContext(FramesUnavailable);
