// Organizations in a real Chromium (Debian's /usr/bin/chromium through playwright-core), two people in two browser
// contexts of one browser: the owner creates and switches organizations, invites by email, and manages members on
// the Members page; the invitee opens the emailed link in a context of their own, signs up there, verifies the
// address with the emailed code and accepts. What each page offers follows the server's `has-permission` answers,
// and what the server refuses shows as its own words. Effects are checked in the demo's database.
// Setup and helpers: organization-fixture.ts.
import { describe, expect, it } from "vitest";
import { PASSWORD, poll, seriousViolations } from "./browser-harness.ts";
import {
  activeOrganizationOf,
  activeRow,
  api,
  codeIn,
  createOrganization,
  demo,
  FORBIDDEN,
  form,
  LAST_OWNER,
  linkIn,
  nextEmail,
  NOT_A_MEMBER,
  NOT_PENDING,
  NOT_YOURS,
  person,
  signedIn,
  store,
  submit,
  setUpOrganizationDemo,
} from "./organization-fixture.ts";

setUpOrganizationDemo();

describe("organizations in the demo, an owner and an invitee in two browser contexts", { timeout: 60_000 }, () => {
  it("creates and switches organizations, invites by email, the invitee accepts in a second context, then a role change and a removal", async () => {
    const axe: string[] = [];
    // The owner: two organizations, each made active on creation, then a switch back to the first.
    const owner = await person();
    await signedIn(owner, "olga@example.com", "Olga");
    await owner.goto(`${api}/organizations`);
    await owner.getByTestId("no-organizations").waitFor();
    await createOrganization(owner, { Name: "Acme Corp" });
    await createOrganization(owner, { Name: "Beta", "Slug (optional: from the name)": "beta-labs" });
    const acme = (await store.organizations.findBySlug("acme-corp"))!;
    const beta = (await store.organizations.findBySlug("beta-labs"))!;
    expect([acme.name, beta.name]).toEqual(["Acme Corp", "Beta"]);
    await poll(() => activeRow(owner).textContent()).toContain("Beta");
    expect(await activeOrganizationOf("olga@example.com")).toEqual([beta.id]);
    await owner.getByRole("button", { name: "Switch to Acme Corp" }).click();
    await poll(() => activeRow(owner).textContent()).toContain("Acme Corp");
    await poll(() => owner.getByTestId("active-organization").textContent()).toBe(
      "Active organization: Acme Corp (you are owner). Its members",
    );
    expect(await activeOrganizationOf("olga@example.com")).toEqual([acme.id]);
    axe.push(...(await seriousViolations(owner)));

    // The Members page of the active organization. The last owner cannot leave: the server says so.
    await owner.getByRole("link", { name: "Members", exact: true }).click();
    await owner.getByRole("heading", { name: "Members of Acme Corp" }).waitFor();
    await owner.getByRole("button", { name: "Leave Acme Corp" }).click();
    await poll(() => owner.getByRole("alert").textContent()).toBe(LAST_OWNER);
    const mail = await nextEmail("zed@example.com", () => submit(owner, "invite member", { Email: "zed@example.com" }));
    await owner.getByText("Invitation sent to zed@example.com.").waitFor();
    await poll(() => owner.getByTestId("invitation-row").allTextContents()).toEqual([
      expect.stringContaining("zed@example.commember"),
    ]);
    expect(mail).toContain("Olga invited zed@example.com to join Acme Corp");
    const link = linkIn(mail);
    expect(link.startsWith(`${api}/accept-invitation?invitationId=`)).toBe(true);
    const invitationId = new URL(link).searchParams.get("invitationId")!;
    expect(await store.organizations.findInvitation(invitationId)).toMatchObject({
      organizationId: acme.id,
      email: "zed@example.com",
      role: "member",
      status: "pending",
    });
    axe.push(...(await seriousViolations(owner)));

    // The invitee, in a browser of their own: the link, a new account, the emailed code, accept.
    const zed = await person();
    await zed.goto(link);
    await form(zed, "sign up to accept").waitFor();
    axe.push(...(await seriousViolations(zed)));
    await submit(zed, "sign up to accept", { Email: "zed@example.com", Name: "Zed", Password: PASSWORD });
    const code = await nextEmail("zed@example.com", () =>
      form(zed, "email me a verification code").getByRole("button").click(),
    );
    await submit(zed, "verify email", { Code: codeIn(code) });
    await poll(() => zed.getByTestId("invitation-details").textContent()).toContain(
      "An invitation for zed@example.com to join as member",
    );
    axe.push(...(await seriousViolations(zed)));
    await zed.getByRole("button", { name: "Accept invitation" }).click();
    await zed.getByText("You joined Acme Corp as member.").waitFor();
    const zedUser = (await store.users.findByEmail("zed@example.com"))!;
    expect(zedUser.emailVerified).toBe(true);
    expect(await store.organizations.findMember(acme.id, zedUser.id)).toMatchObject({ role: "member" });
    expect(await store.organizations.findInvitation(invitationId)).toMatchObject({ status: "accepted" });
    expect(await activeOrganizationOf("zed@example.com")).toEqual([acme.id]);
    // A member may read the members, not manage them: the page offers nothing the server would refuse.
    await zed.getByRole("button", { name: "See the members" }).click();
    await zed.getByRole("heading", { name: "Members of Acme Corp" }).waitFor();
    await zed.getByTestId("cannot-invite").waitFor();
    expect(await zed.getByRole("button", { name: "Remove" }).count()).toBe(0);
    expect(await zed.getByRole("button", { name: "Change role" }).count()).toBe(0);

    // Back with the owner: the new member, and no pending invitation left.
    await owner.reload();
    const zedRow = owner.getByTestId("member-row").filter({ hasText: "zed@example.com" });
    await poll(() => zedRow.getByTestId("member-role").textContent()).toBe("member");
    await owner.getByTestId("no-invitations").waitFor();
    const zedRole = form(owner, "role of zed@example.com");
    await zedRole.getByLabel("New role").selectOption("admin");
    await zedRole.getByRole("button", { name: "Change role" }).click();
    await owner.getByText("zed@example.com is now admin.").waitFor();
    await poll(() => zedRow.getByTestId("member-role").textContent()).toBe("admin");
    expect(await store.organizations.findMember(acme.id, zedUser.id)).toMatchObject({ role: "admin" });
    axe.push(...(await seriousViolations(owner)));

    // Zed as admin: the page now offers the invite form and the member controls; an admin may not demote an
    // owner, which only the server knows here, and its answer is what the page shows.
    await zed.reload();
    await form(zed, "invite member").waitFor();
    const olgaRole = form(zed, "role of olga@example.com");
    await olgaRole.getByLabel("New role").selectOption("member");
    await olgaRole.getByRole("button", { name: "Change role" }).click();
    await poll(() => zed.getByRole("alert").textContent()).toBe(FORBIDDEN);
    const olga = (await store.users.findByEmail("olga@example.com"))!;
    expect(await store.organizations.findMember(acme.id, olga.id)).toMatchObject({ role: "owner" });

    // The owner removes Zed; Zed's Members page then has no organization to show, in the server's words.
    await zedRow.getByRole("button", { name: "Remove" }).click();
    await owner.getByText("zed@example.com is removed from Acme Corp.").waitFor();
    await poll(() => owner.getByTestId("member-row").count()).toBe(1);
    expect(await store.organizations.findMember(acme.id, zedUser.id)).toBeNull();
    await zed.reload();
    await zed.getByTestId("no-active-organization").waitFor();
    expect(await zed.getByRole("alert").textContent()).toBe(NOT_A_MEMBER);
    expect(axe).toEqual([]);
  });

  it("an invitation pending already, a resend inside the cooldown, another user's link and a canceled one are refused in words", async () => {
    const owner = await person();
    await signedIn(owner, "nina@example.com", "Nina");
    await owner.goto(`${api}/organizations`);
    await createOrganization(owner, { Name: "Gamma" });
    await owner.getByRole("link", { name: "Members", exact: true }).click();
    await owner.getByRole("heading", { name: "Members of Gamma" }).waitFor();
    const first = await nextEmail("yan@example.com", async () => {
      await form(owner, "invite member").getByLabel("Role").selectOption("admin");
      await submit(owner, "invite member", { Email: "yan@example.com" });
    });
    const row = owner.getByTestId("invitation-row");
    await poll(() => row.allTextContents()).toEqual([expect.stringContaining("yan@example.comadmin")]);
    // Inviting the address again is refused while one is pending; Resend is the way, but inside the email resend
    // cooldown (60 s per address and network) the server refuses it too, sends nothing and keeps the expiry.
    await submit(owner, "invite member", { Email: "yan@example.com" });
    await poll(() => form(owner, "invite member").getByRole("alert").textContent()).toBe(
      "This address has a pending invitation already: use Resend in the list of invitations.",
    );
    const invitationId = new URL(linkIn(first)).searchParams.get("invitationId")!;
    const before = (await store.organizations.findInvitation(invitationId))!;
    await row.getByRole("button", { name: "Resend" }).click();
    await poll(() => owner.getByRole("alert").allTextContents()).toContain(
      "Too many requests. Wait a moment, then try again.",
    );
    expect((await store.organizations.findInvitation(invitationId))!.expiresAt).toEqual(before.expiresAt);
    expect(demo.output().split("to=yan@example.com ").length - 1).toBe(1);

    // Someone else, signed in with a verified address, opens the link: not theirs.
    const other = await person();
    await signedIn(other, "xena@example.com", "Xena");
    const xena = (await store.users.findByEmail("xena@example.com"))!;
    await store.users.update(xena.id, { emailVerified: true });
    await other.goto(linkIn(first));
    await other.getByRole("button", { name: "Accept invitation" }).click();
    await poll(() => other.getByRole("alert").textContent()).toBe(NOT_YOURS);

    // Canceled, then opened by its invitee: refused, and no membership.
    await row.getByRole("button", { name: "Cancel" }).click();
    await owner.getByText("The invitation to yan@example.com is canceled.").waitFor();
    await owner.getByTestId("no-invitations").waitFor();
    expect(await store.organizations.findInvitation(invitationId)).toMatchObject({ status: "canceled" });
    const invitee = await person();
    await signedIn(invitee, "yan@example.com", "Yan");
    const yan = (await store.users.findByEmail("yan@example.com"))!;
    await store.users.update(yan.id, { emailVerified: true });
    await invitee.goto(linkIn(first));
    await invitee.getByRole("button", { name: "Accept invitation" }).click();
    await poll(() => invitee.getByRole("alert").textContent()).toBe(NOT_PENDING);
    const gamma = (await store.organizations.findBySlug("gamma"))!;
    expect(await store.organizations.findMember(gamma.id, yan.id)).toBeNull();
  });
});
