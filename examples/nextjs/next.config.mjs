// The @latchkey packages ship TypeScript sources; Next compiles them like the app's own files.
/** @type {import("next").NextConfig} */
const nextConfig = {
  transpilePackages: ["@latchkey/core", "@latchkey/hono-adapter", "@latchkey/memory-store"],
};

export default nextConfig;
