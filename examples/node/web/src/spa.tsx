// A page served from another origin than the API: it signs in with CORS and credentials (the session cookie
// belongs to the API's origin) through @latchkey/client. The API's origin is one of the configured ones (the page's
// `latchkey-api-origins` meta, set by the server that serves it); `?api=` may pick among them, never add one: a
// crafted link must not make the page post the typed password to another server.
import { createRoot } from "react-dom/client";
import { createLatchkeyClient } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, Field } from "./shared.tsx";

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

const configured = (document.querySelector('meta[name="latchkey-api-origins"]')?.getAttribute("content") ?? "")
  .split(",")
  .map((o) => originOf(o.trim()))
  .filter((o): o is string => o !== null);
const requested = new URLSearchParams(location.search).get("api");
const requestedOrigin = requested === null ? null : originOf(requested);
const api =
  requested === null
    ? (configured[0] ?? null)
    : requestedOrigin !== null && configured.includes(requestedOrigin)
      ? requestedOrigin
      : null;
const auth = api === null ? null : createLatchkeyClient({ baseURL: `${api}/auth` });

function Refused() {
  return (
    <main>
      <section>
        <h1>Another origin</h1>
        <p role="alert" data-testid="refused">
          This page talks only to its configured API ({configured.join(", ") || "none configured"}); the link asked for{" "}
          {requested ?? "nothing"}, so nothing is sent.
        </p>
      </section>
    </main>
  );
}

function Spa({ auth }: { auth: ReturnType<typeof createLatchkeyClient> }) {
  const { data, isPending } = useSession(auth);
  return (
    <main>
      <section>
        <h1>Another origin</h1>
        <p>
          This page is on {location.origin}; the API is on {api}.
        </p>
        <p data-testid="who">{isPending ? "…" : data ? `Signed in as ${data.user.email}` : "Signed out"}</p>
        {data ? (
          <button type="button" onClick={() => auth.signOut()}>
            Sign out
          </button>
        ) : (
          <ActionForm
            name="sign in with password"
            submit="Sign in"
            run={(f) => auth.signInEmail({ email: f.email!, password: f.password! })}
          >
            <Field label="Email" name="email" type="email" />
            <Field label="Password" name="password" type="password" />
          </ActionForm>
        )}
      </section>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(auth ? <Spa auth={auth} /> : <Refused />);
