// The preamble of every route that acts for a viewer, as dub's withSession:
// the handler is handed its viewer and never reads cookies itself.
import "server-only";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { OwnerScope } from "@/lib/generations/visibility";
import { route } from "@/lib/http";
import { getViewer, type Viewer } from "./get-viewer";

type ViewerHandler<C> = (request: Request, context: C, viewer: Viewer) => Promise<Response>;

export function withViewer<C>(handler: ViewerHandler<C>) {
  return route<C>(async (request, context) => {
    const viewer = await getViewer(request);
    // Anonymous visitors always have one (proxy.ts issues it); with real sign-in, null is "signed out".
    if (!viewer) throw new AppError("unauthorized", "Sign in to use this.");
    return handler(request, context, viewer);
  });
}

/** What a viewer's gallery shows: their own generations, plus the showcase with GALLERY_SCOPE=shared. */
export function galleryScope(viewer: Viewer): OwnerScope {
  return { ownerId: viewer.id, shared: env.GALLERY_SCOPE === "shared" };
}
