// `pnpm start`: Express 5 with Latchkey at /auth. PORT=0 picks a free port (printed).
import { createApp, createExampleAuth } from "./app.ts";
import { readSettings, SettingsError } from "./settings.ts";

// The example reads its environment; the library never does. Production (any NODE_ENV but "development") refuses
// to start without what it needs, naming it.
const port = Number(process.env.PORT ?? 3000);
let settings: ReturnType<typeof readSettings>;
try {
  settings = readSettings((name) => process.env[name], port);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
}
for (const note of settings.notes) console.warn(note);
const auth = createExampleAuth(settings);

const server = createApp(auth).listen(port, process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  console.log(`Latchkey on Express listening on http://localhost:${bound}`);
});

// Shutdown: stop listening, let the requests in flight finish, release the store's connections, exit.
process.once("SIGTERM", () => {
  server.close(() => void auth.close().then(() => process.exit(0)));
});
