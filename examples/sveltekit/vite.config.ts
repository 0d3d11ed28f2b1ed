import adapter from "@sveltejs/adapter-node";
import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig } from "vite";

// `vite build` writes a Node server to build/ (`node build/index.js`; HOST and PORT set where it listens).
// ORIGIN (at build time) is the app's public origin: without it adapter-node derives the origin from the Host
// header and assumes https (or reads PROTOCOL_HEADER), and SvelteKit's CSRF check compares Origin with that.
export default defineConfig({
  plugins: [sveltekit({ adapter: adapter(), paths: { origin: process.env.ORIGIN } })],
});
