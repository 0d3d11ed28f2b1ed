// The page the invitation email links to: sign up or in, verify the address, then accept or decline.
import { useEffect, useState } from "react";
import type { LatchkeyError } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, ErrorText, Field, Notice, query } from "./shared.tsx";
import { auth } from "./client.ts";
import type { Invitation } from "./organizations.tsx";
import { SecondStep } from "./two-factor.tsx";
import { VerifyByCode } from "./verify.tsx";

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
