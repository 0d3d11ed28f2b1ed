// Organizations: the switcher (list, create, make one the session's active one), the active organization's Members
// page (invite, change a role, remove, pending invitations) and the page the invitation email links to. What the
// signed-in member may do is asked of the server (`hasPermission`); the server still decides every action, and its
// answer (an error's own message) is what the page shows.
import { useEffect, useState } from "react";
import type { LatchkeyError, Output } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, ErrorText, Field, Notice, query, timeAgo } from "./shared.tsx";
import { auth } from "./client.ts";
import { SecondStep } from "./two-factor.tsx";
import { VerifyByCode } from "./verify.tsx";

type Membership = Output<"listOrganizations">[number];
type FullOrganization = Output<"getFullOrganization">;
type Invitation = Output<"listInvitations">[number];

/** The demo's roles (`organizations()` with the built-in ones), least first. */
const ROLES = ["member", "admin", "owner"] as const;

/** "Acme Corp" -> "acme-corp": the slug a name suggests (lower-case letters, digits and dashes). */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);

function RoleSelect({ label, defaultValue }: { label: string; defaultValue: string }) {
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

/**
 * The invitation email's link (`/accept-invitation?invitationId=...`): signs the invitee up or in, verifies their
 * email with a code, then accepts (the organization becomes the session's active one) or declines. The server
 * decides whether this user may answer it (their verified address must be the invitation's) and says why not.
 */
export function AcceptInvitation({ go }: { go: (to: string) => void }) {
  const { data: session, isPending } = useSession(auth);
  const invitationId = query("invitationId");
  const [mine, setMine] = useState<Invitation[] | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // A sign-in here of an account with two-factor on: its second step, then back to this page signed in.
  const [secondStep, setSecondStep] = useState(false);
  const verified = session?.user.emailVerified === true;
  useEffect(() => {
    if (!verified) return;
    // The signed-in user's own pending invitations: this one is among them when it is theirs and still open.
    void auth.listInvitations().then((r) => setMine(r.data));
  }, [verified]);
  if (!invitationId)
    return (
      <section>
        <h1>Invitation</h1>
        <p>This link has no invitation in it. Open the link from the invitation email.</p>
      </section>
    );
  if (isPending)
    return (
      <section>
        <h1>Invitation</h1>
        <p>Loading…</p>
      </section>
    );
  if (!session && secondStep) return <SecondStep onDone={() => setSecondStep(false)} />;
  if (!session)
    return (
      <>
        <section>
          <h1>You are invited to an organization</h1>
          <p>Create an account or sign in with the email address the invitation was sent to, then accept it here.</p>
        </section>
        <section>
          <h2>Create an account</h2>
          <ActionForm
            name="sign up to accept"
            submit="Create account"
            run={(f) => auth.signUpEmail({ email: f.email!, password: f.password!, name: f.name || null })}
          >
            <Field label="Email" name="email" type="email" autoComplete="email" />
            <Field label="Name" name="name" required={false} />
            <Field label="Password" name="password" type="password" autoComplete="new-password" />
          </ActionForm>
        </section>
        <section>
          <h2>Or sign in</h2>
          <ActionForm
            name="sign in to accept"
            submit="Sign in"
            run={(f) => auth.signInEmail({ email: f.email!, password: f.password! })}
            onDone={(d) => setSecondStep("twoFactorRequired" in d)}
          >
            <Field label="Email" name="email" type="email" autoComplete="username" />
            <Field label="Password" name="password" type="password" autoComplete="current-password" />
          </ActionForm>
        </section>
      </>
    );
  if (!verified)
    return (
      <>
        <section>
          <h1>You are invited to an organization</h1>
          <p>
            Signed in as {session.user.email}. Verify this address to answer the invitation: only its verified owner
            may.
          </p>
        </section>
        <VerifyByCode level={2} />
      </>
    );
  const invitation = mine?.find((i) => i.id === invitationId) ?? null;
  const accept = async () => {
    const r = await auth.acceptInvitation({ invitationId });
    setError(r.error);
    if (r.error) return;
    // As Better Auth does: the organization just joined becomes the session's active one.
    const joined = await auth.setActiveOrganization({ organizationId: r.data.member.organizationId });
    setDone(`You joined ${joined.data?.name ?? "the organization"} as ${r.data.member.role}.`);
  };
  const decline = async () => {
    const r = await auth.rejectInvitation({ invitationId });
    setError(r.error);
    if (!r.error) setDone("You declined the invitation.");
  };
  return (
    <section>
      <h1>You are invited to an organization</h1>
      {done ? (
        <>
          <Notice>{done}</Notice>
          <button type="button" onClick={() => go("/members")}>
            See the members
          </button>
        </>
      ) : (
        <>
          <p data-testid="invitation-details">
            {invitation
              ? `An invitation for ${invitation.email} to join as ${invitation.role}, open until ${new Date(invitation.expiresAt).toLocaleString("en-GB")}.`
              : `Signed in as ${session.user.email}.`}
          </p>
          <ErrorText error={error} />
          <button type="button" onClick={() => void accept()}>
            Accept invitation
          </button>{" "}
          <button type="button" onClick={() => void decline()}>
            Decline
          </button>
        </>
      )}
    </section>
  );
}
