// Builds the web console (console/) into dist/console-app/, which the REST gateway serves at
// /console/: one esbuild step bundles the TSX (Preact) into app.js and the stylesheet into
// app.css; index.html and the icon are copied as they are. Type-checking is tsc's job
// (`tsc -p console/tsconfig.json` in `npm run build`); esbuild only strips the types.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const outdir = "dist/console-app";
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: [
    { in: "console/src/main.tsx", out: "app" },
    { in: "console/app.css", out: "app" },
  ],
  outdir,
  bundle: true,
  format: "esm",
  target: ["chrome110", "firefox115", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
});
for (const file of ["index.html", "icon.svg"]) copyFileSync(`console/${file}`, `${outdir}/${file}`);
