// Organizations: the switcher (list, create, make one the session's active one), and what the Members page
// (members.tsx) and the invitation page (accept-invitation.tsx) share. What the signed-in member may do is asked of
// the server (`hasPermission`); the server still decides every action, and its answer (an error's own message) is
// what the page shows.
import { useEffect, useState } from "react";
import type { LatchkeyError, Output } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, ErrorText, Field } from "./shared.tsx";
import { auth } from "./client.ts";

type Membership = Output<"listOrganizations">[number];
export type FullOrganization = Output<"getFullOrganization">;
export type Invitation = Output<"listInvitations">[number];

/** The demo's roles (`organizations()` with the built-in ones), least first. */
const ROLES = ["member", "admin", "owner"] as const;

/** "Acme Corp" -> "acme-corp": the slug a name suggests (lower-case letters, digits and dashes). */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);

export function RoleSelect({ label, defaultValue }: { label: string; defaultValue: string }) {
  return (
    <label>
      {label}
      <select name="role" defaultValue={defaultValue}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The organizations of the signed-in user: which one is active, switch to another, create one. */
export function Organizations({ go }: { go: (to: string) => void }) {
  const { data: session } = useSession(auth);
  const active = session?.session.activeOrganizationId ?? null;
  const [list, setList] = useState<Membership[] | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const load = async () => {
    const r = await auth.listOrganizations();
    if (r.error) setError(r.error);
    if (r.data) setList(r.data);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once on mount; `load` is recreated each render.
  useEffect(() => void load(), []);
  const switchTo = async (organizationId: string | null) => {
    // The session store refetches after a successful switch, so the "active" mark follows the server.
    const r = await auth.setActiveOrganization({ organizationId });
    setError(r.error);
  };
  const current = list?.find((o) => o.id === active) ?? null;
  return (
    <>
      <section>
        <h1>Organizations</h1>
        <p data-testid="active-organization">
          {current ? (
            <>
              Active organization: <strong>{current.name}</strong> (you are {current.role}).{" "}
              <a
                href="/members"
                onClick={(e) => {
                  e.preventDefault();
                  go("/members");
                }}
              >
                Its members
              </a>
            </>
          ) : (
            "No active organization."
          )}
        </p>
        <ErrorText error={error} />
        {list === null ? null : list.length === 0 ? (
          <p data-testid="no-organizations">You are not a member of any organization yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Slug</th>
                <th>Your role</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((o) => (
                <tr key={o.id} data-testid="organization-row">
                  <td>
                    {o.name}
                    {o.id === active && <strong data-testid="active-mark"> (active)</strong>}
                  </td>
                  <td>
                    <code>{o.slug}</code>
                  </td>
                  <td>{o.role}</td>
                  <td className="actions">
                    {o.id === active ? (
                      <button type="button" onClick={() => void switchTo(null)}>
                        Use no organization
                      </button>
                    ) : (
                      <button type="button" onClick={() => void switchTo(o.id)}>
                        Switch to {o.name}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section>
        <h2>Create an organization</h2>
        <p>You become its owner, and it becomes your active organization.</p>
        <ActionForm
          name="create organization"
          submit="Create organization"
          run={(f) => auth.createOrganization({ name: f.name!, slug: f.slug?.trim() || slugOf(f.name!) })}
          onDone={() => void load()}
        >
          <Field label="Name" name="name" />
          <Field label="Slug (optional: from the name)" name="slug" required={false} />
        </ActionForm>
      </section>
    </>
  );
}
