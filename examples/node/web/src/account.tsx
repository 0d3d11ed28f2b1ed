// Account settings and deletion.
import { useState } from "react";
import { useSession } from "@latchkey/client/react";
import { ActionForm, Field, Notice, query } from "./shared.tsx";
import { auth } from "./client.ts";

export function Settings() {
  const { data } = useSession(auth);
  const [saved, setSaved] = useState<string | null>(null);
  if (!data)
    return (
      <section>
        <p>Sign in first.</p>
      </section>
    );
  const { user } = data;
  return (
    <>
      <section>
        <h1>Profile</h1>
        {saved && <Notice>{saved}</Notice>}
        <ActionForm
          name="profile"
          submit="Save profile"
          run={(f) =>
            auth.updateUser({
              name: f.name || null,
              image: f.image || null,
              ...(f.username ? { username: f.username } : {}),
            })
          }
          onDone={() => setSaved("Profile saved.")}
        >
          <Field label="Name" name="name" defaultValue={user.name ?? ""} required={false} />
          <Field label="Image URL" name="image" defaultValue={user.image ?? ""} required={false} />
          <Field label="Username" name="username" defaultValue={user.username ?? ""} required={false} />
        </ActionForm>
      </section>
      <section>
        <h2>Add a password</h2>
        <p>For accounts made with an emailed code.</p>
        <ActionForm
          name="set password"
          submit="Add password"
          run={(f) => auth.setPassword({ newPassword: f.newPassword! })}
          onDone={() => setSaved("Password added.")}
        >
          <Field label="New password" name="newPassword" type="password" autoComplete="new-password" />
        </ActionForm>
      </section>
      <section>
        <h2>Check your password</h2>
        <ActionForm
          name="verify password"
          submit="Check"
          run={(f) => auth.verifyPassword({ password: f.password! })}
          onDone={() => setSaved("That password is right.")}
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
        </ActionForm>
      </section>
    </>
  );
}

export function DeleteAccount({ go }: { go: (to: string) => void }) {
  const [sent, setSent] = useState(false);
  return (
    <>
      <section>
        <h1>Delete your account</h1>
        <ActionForm
          name="delete account with password"
          submit="Delete my account"
          run={(f) => auth.deleteAccount({ password: f.password! })}
          onDone={() => go("/")}
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
        </ActionForm>
      </section>
      <section>
        <h2>No password?</h2>
        {sent ? (
          <Notice>We emailed you a link that deletes the account.</Notice>
        ) : (
          <ActionForm
            name="email me a deletion link"
            submit="Email me a deletion link"
            run={() => auth.requestAccountDeletion()}
            onDone={() => setSent(true)}
          >
            <p>We will email a confirmation link.</p>
          </ActionForm>
        )}
      </section>
    </>
  );
}

export function ConfirmDeletion({ go }: { go: (to: string) => void }) {
  const [done, setDone] = useState(false);
  return (
    <section>
      <h1>Confirm account deletion</h1>
      {done ? (
        <>
          <Notice>Your account is deleted.</Notice>
          <button type="button" onClick={() => go("/")}>
            Home
          </button>
        </>
      ) : (
        <ActionForm
          name="confirm deletion"
          submit="Delete my account for good"
          run={() => auth.confirmAccountDeletion({ token: query("token") })}
          onDone={() => setDone(true)}
        >
          <p>This cannot be undone.</p>
        </ActionForm>
      )}
    </section>
  );
}
