// The looks of the result clips: a dozen colour-and-motion recipes for FFmpeg's
// lavfi sources, one picked by a hash of the prompt, so that a gallery of
// results shows tiles a person can tell apart and the same prompt always gets
// the same clip.
import { createHash } from "node:crypto";

type Motion = "flow" | "bloom" | "swirl" | "orbit" | "cells" | "weave" | "dive" | "skyline" | "carpet";
/** `colors`: hex RGB, background or sky first; `seed` varies the pattern within a motion (for `dive`, it is the hue shift). */
export type Look = { name: string; motion: Motion; colors: string[]; seed: number };
type Frame = { width: number; height: number; fps: number; seconds: number };

export const LOOKS: readonly Look[] = [
  { name: "dawn", motion: "flow", colors: ["1b3a6b", "f2a65a", "e4572e", "2e294e"], seed: 7 },
  { name: "lagoon", motion: "flow", colors: ["003049", "2a9d8f", "8ecae6", "023047"], seed: 19 },
  { name: "ember", motion: "bloom", colors: ["3d0066", "ff006e", "ffbe0b", "14213d"], seed: 11 },
  { name: "aurora", motion: "swirl", colors: ["0b132b", "5bc0be", "c6f91f", "3a506b"], seed: 3 },
  { name: "confetti", motion: "orbit", colors: ["22223b", "f4a261", "2a9d8f", "e9c46a"], seed: 1 },
  { name: "meadow", motion: "orbit", colors: ["dde5b6", "386641", "bc4749", "6a994e"], seed: 4 },
  { name: "reef", motion: "cells", colors: ["073b4c", "ffd166", "118ab2"], seed: 5 },
  { name: "loom", motion: "weave", colors: ["1d3557", "f07167"], seed: 9 },
  { name: "abyss", motion: "dive", colors: [], seed: 200 },
  { name: "dusk", motion: "skyline", colors: ["6a4c93", "ff9e6d", "3d3b5c", "1a1b2e"], seed: 4 },
  { name: "noon", motion: "skyline", colors: ["e0fbfc", "8ecae6", "577590", "264653"], seed: 8 },
  { name: "tiles", motion: "carpet", colors: ["240046", "c77dff"], seed: 6 },
];

/** The look of a prompt: a hash of it, over the first `count` looks (1 gives every prompt the first). */
export function lookFor(prompt: unknown, count = LOOKS.length): Look {
  const digest = createHash("sha256").update(typeof prompt === "string" ? prompt : "").digest();
  return LOOKS[digest.readUInt32BE(0) % Math.min(Math.max(1, count), LOOKS.length)]!;
}

/**
 * The lavfi graph of a look at `width`×`height`. Patterns are drawn at a
 * quarter of the size (cheap) and scaled up; the grain on top, added at full
 * size, keeps every frame different so the encoder spends the bitrate asked
 * for, as it would on camera footage.
 */
export function lookSource(look: Look, frame: Frame): string {
  const { width, height, fps } = frame;
  const small = `${even(width / 4)}x${even(height / 4)}`;
  const [c0, c1, c2, c3] = look.colors.map((c) => `0x${c}`);
  const gradient = (type: string, speed: number) =>
    `gradients=s=${small}:r=${fps}:type=${type}:c0=${c0}:c1=${c1}:c2=${c2}:c3=${c3}:n=4:speed=${speed}:seed=${look.seed}`;
  const pattern = {
    flow: gradient("linear", 0.02),
    bloom: gradient("radial", 0.025),
    swirl: gradient("spiral", 0.03),
    orbit: orbiting(look, frame),
    cells: `life=s=${even(width / 8)}x${even(height / 8)}:r=4:ratio=0.3:seed=${look.seed}:mold=20:death_color=${c0}:life_color=${c1}:mold_color=${c2},fps=${fps},scale=${width}:${height}:flags=neighbor`,
    weave: `cellauto=s=${small}:r=${fps}:rule=110:scroll=1:ratio=0.5:seed=${look.seed},format=rgb24,${twoTone(look.colors)},scale=${width}:${height}:flags=neighbor`,
    dive: `mandelbrot=s=${small}:r=${fps}:maxiter=200:start_scale=3:end_scale=0.3:end_pts=${fps * frame.seconds}:start_x=-0.743643887037151:start_y=0.131825904205330,hue=h=${look.seed}`,
    skyline: skyline(look, frame),
    carpet: `sierpinski=s=${small}:r=${fps}:type=carpet:jump=1:seed=${look.seed},format=rgb24,${twoTone(look.colors)}`,
  }[look.motion];
  return `${pattern},scale=${width}:${height},format=yuv420p,noise=alls=14:allf=t`;
}

const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));

/**
 * Three boxes drifting on paths of their own over a plain background, sized and
 * placed in fractions of the frame (any aspect ratio). Overlays, not drawbox:
 * drawbox places its boxes once, overlay moves them every frame.
 */
function orbiting(look: Look, { width, height, fps }: Frame): string {
  const [background, ...colors] = look.colors;
  const boxes = [
    { x: "0.05+0.35*(1+sin(t*1.3))/2", y: "0.25+0.15*sin(t*0.9)", w: 0.25, h: 0.4 },
    { x: "0.45+0.3*(1+cos(t*0.8))/2", y: "0.45+0.25*sin(t*1.6)", w: 0.2, h: 0.3 },
    { x: "0.1+0.75*(1+sin(t*0.6+2))/2", y: "0.05+0.1*(1+cos(t*2.1))/2", w: 0.1, h: 0.16 },
  ];
  const sources = boxes.map((box, i) => `color=c=0x${colors[i]}:s=${even(width * box.w)}x${even(height * box.h)}:r=${fps}[box${i}]`);
  // The seed shifts every path in time, so looks sharing this motion move differently.
  const at = (size: string, path: string) => `'${size}*(${path.replaceAll("t", `(t+${look.seed})`)})'`;
  const overlays = boxes.map((box, i) => `[layer${i}][box${i}]overlay=x=${at("W", box.x)}:y=${at("H", box.y)}${i < boxes.length - 1 ? `[layer${i + 1}]` : ""}`);
  return [`color=c=0x${background}:s=${width}x${height}:r=${fps}[layer0]`, ...sources, ...overlays].join(";");
}

/** A black-and-white pattern recoloured: black to the first colour, white to the second. */
function twoTone([dark = "000000", light = "ffffff"]: string[]): string {
  const channel = (i: number) => {
    const from = parseInt(dark.slice(i * 2, i * 2 + 2), 16);
    const to = parseInt(light.slice(i * 2, i * 2 + 2), 16);
    return `'${from}+val*${to - from}/255'`;
  };
  return `lutrgb=r=${channel(0)}:g=${channel(1)}:b=${channel(2)}`;
}

/**
 * A slow pan across a generated city: a sky gradient behind two rows of
 * buildings (heights from the look's seed) on a canvas twice the frame's
 * width, cropped to the frame as it moves from left to right over the clip.
 */
function skyline(look: Look, { width, height, fps, seconds }: Frame): string {
  const [sky0, sky1, far, near] = look.colors;
  let seed = look.seed;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const row = (count: number, color: string | undefined, tallest: number) =>
    Array.from({ length: count }, (_, i) => {
      const w = (0.55 + 0.4 * random()) / count;
      const h = tallest * (0.35 + 0.65 * random());
      return `drawbox=x='iw*${(i / count).toFixed(4)}':y='ih*${(1 - h).toFixed(4)}':w='iw*${w.toFixed(4)}':h='ih*${h.toFixed(4)}':color=0x${color}:t=fill`;
    });
  return [
    `gradients=s=${even(width / 2)}x${even(height / 4)}:r=${fps}:c0=0x${sky0}:c1=0x${sky1}:n=2:x0=0:y0=0:x1=0:y1=${even(height / 4)}:speed=0.00001`,
    `scale=${width * 2}:${height}`,
    ...row(9, far, 0.6),
    ...row(6, near, 0.4),
    `crop=w=${width}:h=${height}:x='${width}*t/${seconds}'`,
  ].join(",");
}
