// The active organization's Members page: invite, change a role, remove, pending invitations (resend, cancel).
import { useEffect, useState } from "react";
import type { LatchkeyError } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, ErrorText, Field, Notice, timeAgo } from "./shared.tsx";
import { auth } from "./client.ts";
import { RoleSelect, type FullOrganization } from "./organizations.tsx";

/** What the Members page offers, each asked of the server for the signed-in member's role. */
interface Allowed {
  invite: boolean;
  cancel: boolean;
  changeRole: boolean;
  remove: boolean;
}

async function allowedIn(organizationId: string): Promise<Allowed> {
  const ask = async (permissions: Record<string, string[]>) =>
    (await auth.hasPermission({ organizationId, permissions })).data?.success === true;
  const [invite, cancel, changeRole, remove] = await Promise.all([
    ask({ invitation: ["create"] }),
    ask({ invitation: ["cancel"] }),
    ask({ member: ["update"] }),
    ask({ member: ["delete"] }),
  ]);
  return { invite, cancel, changeRole, remove };
}

const NONE: Allowed = { invite: false, cancel: false, changeRole: false, remove: false };

/** The active organization's members and pending invitations. */
export function Members({ go }: { go: (to: string) => void }) {
  const { data: session } = useSession(auth);
  const active = session?.session.activeOrganizationId ?? null;
  const me = session?.user.id ?? null;
  const [org, setOrg] = useState<FullOrganization | null>(null);
  const [allowed, setAllowed] = useState<Allowed>(NONE);
  const [loadError, setLoadError] = useState<LatchkeyError | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = async (organizationId: string) => {
    const [full, can] = await Promise.all([auth.getFullOrganization({ organizationId }), allowedIn(organizationId)]);
    setLoadError(full.error);
    setOrg(full.data);
    setAllowed(can);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads when the active organization changes.
  useEffect(() => {
    setOrg(null);
    setLoadError(null);
    if (active) void load(active);
  }, [active]);
  /** Runs one action, shows the server's answer (its error message, or `done`), and reloads the organization. */
  const act = async (run: () => Promise<{ error: LatchkeyError | null }>, done: string) => {
    setNotice(null);
    const r = await run();
    setError(r.error);
    if (!r.error) setNotice(done);
    if (org) await load(org.id);
  };
  const toOrganizations = (
    <a
      href="/organizations"
      onClick={(e) => {
        e.preventDefault();
        go("/organizations");
      }}
    >
      Organizations
    </a>
  );
  if (!session)
    return (
      <section>
        <h1>Members</h1>
        <p>Sign in first.</p>
      </section>
    );
  if (!active || loadError)
    return (
      <section>
        <h1>Members</h1>
        <ErrorText error={loadError} />
        <p data-testid="no-active-organization">
          No active organization: create one or switch to one on the {toOrganizations} page.
        </p>
      </section>
    );
  if (!org)
    return (
      <section>
        <h1>Members</h1>
        <p>Loading…</p>
      </section>
    );
  const myRole = org.members.find((m) => m.userId === me)?.role ?? "—";
  return (
    <>
      <section>
        <h1>Members of {org.name}</h1>
        <p data-testid="my-role">
          You are {myRole} here. Switch organization on the {toOrganizations} page.
        </p>
        <ErrorText error={error} />
        {notice && <Notice>{notice}</Notice>}
        <table>
          <thead>
            <tr>
              <th>Member</th>
              <th>Role</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {org.members.map((m) => (
              <tr key={m.id} data-testid="member-row">
                <td>
                  {m.user.name ? `${m.user.name} ` : ""}
                  <span className="muted" data-testid="member-email">
                    {m.user.email}
                  </span>
                  {m.userId === me && <strong> (you)</strong>}
                </td>
                <td data-testid="member-role">{m.role}</td>
                <td className="actions">
                  {m.userId === me ? (
                    <button
                      type="button"
                      onClick={async () => {
                        setNotice(null);
                        const r = await auth.leaveOrganization({ organizationId: org.id });
                        setError(r.error);
                        if (r.error) return;
                        await auth.setActiveOrganization({ organizationId: null });
                        go("/organizations");
                      }}
                    >
                      Leave {org.name}
                    </button>
                  ) : (
                    <>
                      {allowed.changeRole && (
                        <form
                          aria-label={`role of ${m.user.email}`}
                          className="inline"
                          onSubmit={(e) => {
                            e.preventDefault();
                            const role = String(new FormData(e.currentTarget).get("role"));
                            void act(
                              () => auth.updateMemberRole({ organizationId: org.id, memberId: m.id, role }),
                              `${m.user.email} is now ${role}.`,
                            );
                          }}
                        >
                          <RoleSelect label="New role" defaultValue={m.role} />
                          <button type="submit">Change role</button>
                        </form>
                      )}
                      {allowed.remove && (
                        <button
                          type="button"
                          onClick={() =>
                            void act(
                              () => auth.removeMember({ organizationId: org.id, memberIdOrEmail: m.id }),
                              `${m.user.email} is removed from ${org.name}.`,
                            )
                          }
                        >
                          Remove
                        </button>
                      )}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section>
        <h2>Invite someone</h2>
        {allowed.invite ? (
          <ActionForm
            name="invite member"
            submit="Send invitation"
            run={(f) => auth.inviteMember({ organizationId: org.id, email: f.email!, role: f.role! })}
            onDone={(invitation) => {
              setError(null);
              setNotice(`Invitation sent to ${invitation.email}.`);
              void load(org.id);
            }}
          >
            <Field label="Email" name="email" type="email" />
            <RoleSelect label="Role" defaultValue="member" />
          </ActionForm>
        ) : (
          <p data-testid="cannot-invite">
            Your role ({myRole}) cannot invite people to {org.name}.
          </p>
        )}
      </section>
      <section>
        <h2>Pending invitations</h2>
        {org.invitations.length === 0 ? (
          <p data-testid="no-invitations">No pending invitations.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Email</th>
                <th>Role</th>
                <th>Expires</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {org.invitations.map((i) => (
                <tr key={i.id} data-testid="invitation-row">
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>
                    <time dateTime={i.expiresAt} title={new Date(i.expiresAt).toLocaleString("en-GB")}>
                      {timeAgo(i.expiresAt)}
                    </time>
                  </td>
                  <td className="actions">
                    {allowed.invite && (
                      <button
                        type="button"
                        onClick={() =>
                          void act(
                            () =>
                              auth.inviteMember({ organizationId: org.id, email: i.email, role: i.role, resend: true }),
                            `Invitation sent to ${i.email} again.`,
                          )
                        }
                      >
                        Resend
                      </button>
                    )}
                    {allowed.cancel && (
                      <button
                        type="button"
                        onClick={() =>
                          void act(
                            () => auth.cancelInvitation({ invitationId: i.id }),
                            `The invitation to ${i.email} is canceled.`,
                          )
                        }
                      >
                        Cancel
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
