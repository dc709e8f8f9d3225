// Where a frame taken from a result goes by default: the first-and-last-frame
// model's first frame. Shared by the server (which takes the frame with FFmpeg)
// and the browser (which takes it itself when the server has no FFmpeg).
import { MODELS } from "./catalog";

export const FRAME_TARGET = { model: MODELS.find((m) => m.kind === "first-last-frame")!.id, field: "first_frame_url" } as const;
