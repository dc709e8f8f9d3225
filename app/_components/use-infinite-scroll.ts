"use client";
// Infinite scroll beside a real "Load more" button: when the button's row comes
// near the viewport, the next page loads by itself; keyboard and screen-reader
// users press the button, which stays in the focus order.
import { useEffect, useRef } from "react";

/** Starts loading this far before the button is on screen. */
const AHEAD = "600px";

export function useInfiniteScroll(enabled: boolean, loadMore: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!enabled || !element || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) loadMore();
    }, { rootMargin: AHEAD });
    observer.observe(element);
    return () => observer.disconnect();
  }, [enabled, loadMore]);
  return ref;
}
