import adapter from "@sveltejs/adapter-node";
import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig } from "vite";

// `vite build` writes a Node server to build/ (`node build/index.js`; HOST and PORT set where it listens).
export default defineConfig({ plugins: [sveltekit({ adapter: adapter() })] });
