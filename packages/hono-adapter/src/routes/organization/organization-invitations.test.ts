import { describe, expect, it } from "vitest";
import { setup, type Setup } from "./organization-fixture.ts";

describe("organizations over HTTP: invitations", () => {
  async function invited(s: Setup, role = "member") {
    const owner = await s.person("owner");
    const invitee = await s.person("invitee");
    const org = await s.org({ owner });
    const res = await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: invitee.email, role },
      owner.token,
    );
    expect(res.status).toBe(200);
    const invitation = await s.json<{ id: string }>(res);
    return { owner, invitee, org, invitation };
  }

  it("emails a link with the invitation's id; resend renews it; a second invite without resend is 409", async () => {
    const s = await setup({ invitationURL: "/join" });
    const { owner, invitee, org, invitation } = await invited(s);
    await s.t.settle();
    const mail = s.t.emails.last(invitee.email)!;
    expect(mail.template).toBe("organization-invitation");
    expect(mail.text).toContain(`https://app.example/join?invitationId=${invitation.id}`);
    expect(mail.subject).toContain("Acme");
    const again = await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: invitee.email, role: "member" },
      owner.token,
    );
    expect(again.status).toBe(409);
    expect((await s.json(again)).code).toBe("INVITATION_ALREADY_SENT");
    s.t.clock.advance(3_600_000);
    const resent = await s.post(
      "/organization/invite-member",
      { organizationId: org.id, email: invitee.email, role: "member", resend: true },
      owner.token,
    );
    expect(resent.status).toBe(200);
    const renewed = await s.t.store.organizations.findInvitation(invitation.id);
    expect(renewed?.expiresAt.getTime()).toBe(s.t.clock.now() + 48 * 3_600_000);
    await s.t.settle();
    expect(s.t.emails.sent.filter((m) => m.to === invitee.email)).toHaveLength(2);
    expect((await s.t.store.organizations.listInvitations(org.id)).length).toBe(1);
  });

  it("accept adds the member with the invitation's role, once; the second accept is 409", async () => {
    const s = await setup();
    const { invitee, org, invitation } = await invited(s, "admin");
    const res = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(res.status).toBe(200);
    expect(await s.json(res)).toMatchObject({
      invitation: { status: "accepted" },
      member: { role: "admin", userId: invitee.userId },
    });
    expect((await s.memberOf(org.id, invitee.userId))?.role).toBe("admin");
    const twice = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(twice.status).toBe(409);
    expect((await s.json(twice)).code).toBe("INVITATION_NOT_PENDING");
    expect((await s.t.store.organizations.listMembers(org.id)).length).toBe(2);
    const mine = await s.json<unknown[]>(await s.get("/organization/list-invitations", invitee.token));
    expect(mine).toEqual([]);
  });

  it("the wrong user, an unverified address, an expired or a canceled invitation: refused, nothing written", async () => {
    const s = await setup();
    const { owner, invitee, org, invitation } = await invited(s);
    const stranger = await s.person("stranger");
    const wrong = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, stranger.token);
    expect(wrong.status).toBe(403);
    expect((await s.json(wrong)).code).toBe("INVITATION_RECIPIENT_MISMATCH");
    expect(await s.memberOf(org.id, stranger.userId)).toBeNull();
    await s.t.store.users.update(invitee.userId, { emailVerified: false });
    const unverified = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(unverified.status).toBe(403);
    expect((await s.json(unverified)).code).toBe("EMAIL_NOT_VERIFIED");
    await s.t.store.users.update(invitee.userId, { emailVerified: true });
    expect((await s.t.store.organizations.findInvitation(invitation.id))?.status).toBe("pending");
    s.t.clock.advance(48 * 3_600_000);
    const expired = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(expired.status).toBe(400);
    expect((await s.json(expired)).code).toBe("INVITATION_EXPIRED");
    expect(
      (await s.post("/organization/reject-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(400);
    expect(await s.memberOf(org.id, invitee.userId)).toBeNull();
    // A fresh invitation, canceled before the accept.
    const second = await s.json<{ id: string }>(
      await s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: invitee.email, role: "member", resend: true },
        owner.token,
      ),
    );
    expect((await s.post("/organization/cancel-invitation", { invitationId: second.id }, owner.token)).status).toBe(
      200,
    );
    const canceled = await s.post("/organization/accept-invitation", { invitationId: second.id }, invitee.token);
    expect(canceled.status).toBe(409);
    expect(await s.memberOf(org.id, invitee.userId)).toBeNull();
    expect((await s.post("/organization/accept-invitation", { invitationId: "nope" }, invitee.token)).status).toBe(404);
  });

  it("reject ends the invitation: a later accept is 409", async () => {
    const s = await setup();
    const { invitee, org, invitation } = await invited(s);
    expect(
      (await s.post("/organization/reject-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(200);
    expect((await s.t.store.organizations.findInvitation(invitation.id))?.status).toBe("rejected");
    expect(
      (await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(409);
    expect(await s.memberOf(org.id, invitee.userId)).toBeNull();
  });

  it("an invitation outlives its inviter's membership: accepted after the inviter left", async () => {
    const s = await setup();
    const owner = await s.person("owner");
    const admin = await s.person("admin");
    const invitee = await s.person("invitee");
    const org = await s.org({ owner, admin });
    const invitation = await s.json<{ id: string; inviterId: string }>(
      await s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: invitee.email, role: "member" },
        admin.token,
      ),
    );
    expect(invitation.inviterId).toBe(admin.userId);
    expect((await s.post("/organization/leave", { organizationId: org.id }, admin.token)).status).toBe(200);
    expect(await s.memberOf(org.id, admin.userId)).toBeNull();
    expect(
      (await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token)).status,
    ).toBe(200);
    expect((await s.memberOf(org.id, invitee.userId))?.role).toBe("member");
  });

  it("two parallel accepts of one invitation: exactly one membership", async () => {
    const s = await setup();
    const { invitee, org, invitation } = await invited(s);
    const answers = await Promise.all(
      [0, 1, 2, 3].map(() => s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(
      (await s.t.store.organizations.listMembers(org.id)).filter((m) => m.user.id === invitee.userId),
    ).toHaveLength(1);
    expect(s.events.filter((e) => e.type === "InvitationAccepted")).toHaveLength(1);
  });

  it("the membership limit and the beforeMemberAdded hook refuse an accept, which stays pending", async () => {
    const s = await setup({
      membershipLimit: 2,
      hooks: {
        beforeMemberAdded: (member, context) => !(context.path === "accept-invitation" && member.role === "admin"),
      },
    });
    const { owner, invitee, org, invitation } = await invited(s, "admin");
    const hooked = await s.post("/organization/accept-invitation", { invitationId: invitation.id }, invitee.token);
    expect(hooked.status).toBe(403);
    expect((await s.json(hooked)).code).toBe("MEMBER_ADD_REJECTED");
    expect((await s.t.store.organizations.findInvitation(invitation.id))?.status).toBe("pending");
    const other = await s.person("other");
    await s.t.auth.api.addMember({ userId: other.userId, organizationId: org.id, role: "member" });
    const next = await s.person("next");
    const second = await s.json<{ id: string }>(
      await s.post(
        "/organization/invite-member",
        { organizationId: org.id, email: next.email, role: "member" },
        owner.token,
      ),
    );
    const full = await s.post("/organization/accept-invitation", { invitationId: second.id }, next.token);
    expect(full.status).toBe(409);
    expect((await s.json(full)).code).toBe("MEMBERSHIP_LIMIT_REACHED");
    expect(await s.memberOf(org.id, next.userId)).toBeNull();
  });
});
