#!/usr/bin/env bash
# Render images/icon.svg to images/icon.png (128x128) with Debian's chromium driven by
# playwright-core (both installed by scripts/e2e-setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=$(scripts/e2e-setup.sh | tail -1)
. "$CACHE/env.sh"
PLAYWRIGHT="$CACHE/tools/node_modules/playwright-core" node -e '
const { chromium } = require(process.env.PLAYWRIGHT);
const fs = require("fs");
(async () => {
  const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const p = await b.newPage({ viewport: { width: 128, height: 128 } });
  await p.setContent(`<html><body style="margin:0;background:transparent">${fs.readFileSync("images/icon.svg", "utf8")}</body></html>`);
  await p.locator("svg").screenshot({ path: "images/icon.png", omitBackground: true });
  await b.close();
})();'
ls -l images/icon.png
