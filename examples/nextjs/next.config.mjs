// Nothing Latchkey-specific: the @latchkey/* packages ship compiled JavaScript with types.
/** @type {import("next").NextConfig} */
const nextConfig = {};

export default nextConfig;
