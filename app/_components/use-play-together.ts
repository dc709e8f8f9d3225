"use client";
// A comparison's players, started in step: the owner's view and the public
// page both offer "Play all from the start". Each <video> registers under a
// key; playing rewinds every one first, then starts them all at once, so they
// run together from the first frame.
import { useRef } from "react";

export function usePlayTogether() {
  const players = useRef(new Map<string, HTMLVideoElement>());

  const register = (key: string) => (video: HTMLVideoElement | null) => {
    if (video) players.current.set(key, video);
    else players.current.delete(key);
  };

  /** Plays the registered players of `keys` from the start; answers how many. */
  const playAll = async (keys: string[]): Promise<number> => {
    const videos = keys.map((key) => players.current.get(key)).filter((v): v is HTMLVideoElement => v !== undefined);
    for (const video of videos) {
      video.pause();
      video.currentTime = 0;
    }
    await Promise.all(videos.map((video) => video.play().catch(() => undefined)));
    return videos.length;
  };

  return { register, playAll };
}
