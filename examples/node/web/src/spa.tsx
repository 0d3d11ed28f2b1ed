// A page served from another origin than the API: it signs in with CORS and credentials (the session cookie
// belongs to the API's origin) through @latchkey/client. The API's origin comes from `?api=`.
import { createRoot } from "react-dom/client";
import { createLatchkeyClient } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, Field } from "./shared.tsx";

const api = new URLSearchParams(location.search).get("api") ?? "http://localhost:3000";
const auth = createLatchkeyClient({ baseURL: `${api}/auth` });

function Spa() {
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

createRoot(document.getElementById("root")!).render(<Spa />);
