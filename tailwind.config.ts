// Loaded from app/globals.css with @config. The colours come from lib/brand/index.ts,
// so a fork re-themes there; the font stack is the other thing forks change first.
import type { Config } from "tailwindcss";
import { brand } from "./lib/brand";

export default {
  theme: {
    extend: {
      colors: {
        brand: brand.colors.brand,
        page: { light: brand.colors.pageLight, dark: brand.colors.pageDark },
      },
      fontFamily: {
        sans: ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
      },
    },
  },
} satisfies Config;
