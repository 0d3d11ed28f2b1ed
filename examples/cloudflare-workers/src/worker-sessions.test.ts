// Two worker instances (two Miniflare processes) over one persisted D1, sessions and limits: an admin ban, sessions
// read and revoked across instances, an OTP code, the per-IP budget and the lockout. Setup: worker-fixture.ts.
import { describe, expect, it } from "vitest";
import { BASE_URL, codeSentTo, json, setUpWorkers, signIn, signUp, viaA, viaB, worker } from "./worker-fixture.ts";

setUpWorkers({ other: true });

describe("two worker instances (two Miniflare processes) over one persisted D1 share what memory could not", () => {
  it("admin on D1: a ban on one instance ends the user's session and key on the other, and refuses its sign-in there", async () => {
    const adminCookie = await signUp("boss@workers.example", "192.0.2.40");
    // The first admin of a deployment: a role written by server code (here straight into D1).
    const d1 = await worker.d1("DB");
    await d1
      .prepare("update users set app_metadata = ? where email = ?")
      .bind(JSON.stringify({ role: "admin" }), "boss@workers.example")
      .run();
    const cookie = await signUp("mallory@workers.example", "192.0.2.41");
    const me = (await (
      await viaB(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.41")
    ).json()) as { user: { id: string } };
    const created = await viaA(
      new Request(`${BASE_URL}/auth/api-key/create`, {
        ...json({ name: "ci" }),
        headers: { "content-type": "application/json", origin: BASE_URL, cookie },
      }),
      "192.0.2.41",
    );
    expect(created.status).toBe(200);
    const { key } = (await created.json()) as { key: string };
    const verifyOnB = async () =>
      (await (await viaB(new Request(`${BASE_URL}/auth/api-key/verify`, json({ key })), "192.0.2.42")).json()) as {
        valid: boolean;
        error?: { code: string };
      };
    expect((await verifyOnB()).valid).toBe(true);
    const banned = await viaA(
      new Request(`${BASE_URL}/auth/admin/ban-user`, {
        ...json({ userId: me.user.id, banReason: "fraud" }),
        headers: { "content-type": "application/json", origin: BASE_URL, cookie: adminCookie },
      }),
      "192.0.2.40",
    );
    expect(banned.status, await banned.clone().text()).toBe(200);
    const onB = await viaB(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.41");
    expect(await onB.json()).toBeNull();
    expect((await verifyOnB()).error?.code).toBe("KEY_DISABLED");
    const refused = await signIn(viaB, "mallory@workers.example", "correct horse battery", "192.0.2.41");
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("USER_BANNED");
    const { results } = await d1.prepare("select id from sessions where user_id = ?").bind(me.user.id).all();
    expect(results ?? []).toEqual([]);
  });

  it("a session made on one instance is read, and revoked, on the other", async () => {
    const cookie = await signUp("grace@workers.example", "192.0.2.10");
    const onB = await viaB(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.10");
    expect(((await onB.json()) as { user: { email: string } } | null)?.user.email).toBe("grace@workers.example");
    // B took its base URL from the request: a foreign Origin is refused, its own is trusted below.
    const foreign = await viaB(
      new Request(`${BASE_URL}/auth/sign-out`, { method: "POST", headers: { cookie, origin: "https://evil.example" } }),
      "192.0.2.10",
    );
    expect(foreign.status).toBe(403);
    const out = await viaB(
      new Request(`${BASE_URL}/auth/sign-out`, { method: "POST", headers: { cookie, origin: BASE_URL } }),
      "192.0.2.10",
    );
    expect(out.status).toBe(200);
    const onA = await viaA(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.10");
    expect(await onA.json()).toBeNull();
  });

  it("sessions revoked on one instance are refused on the other at once (revoke-other-sessions, revoke-session)", async () => {
    const email = "devices@workers.example";
    const laptop = await signUp(email, "192.0.2.30");
    // Bearer devices ask for the session token (a browser page is served by the cookie alone).
    const bearerOf = async (via: typeof viaA, ip: string) => {
      const init = json({ email, password: "correct horse battery" });
      const res = await via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          ...init,
          headers: { ...init.headers, "latchkey-credentials": "bearer" },
        }),
        ip,
      );
      expect(res.status).toBe(200);
      return ((await res.json()) as { credentials: { token: string } }).credentials.token;
    };
    const phone = await bearerOf(viaB, "192.0.2.31");
    const tablet = await bearerOf(viaA, "192.0.2.32");
    const session = (via: typeof viaA, token: string) =>
      via(new Request(`${BASE_URL}/auth/get-session`, { headers: { authorization: `Bearer ${token}` } }), "192.0.2.33");
    // B lists the three sessions of the user; A revokes the phone's by id.
    const listed = await viaB(
      new Request(`${BASE_URL}/auth/list-sessions`, { headers: { authorization: `Bearer ${tablet}` } }),
      "192.0.2.33",
    );
    const { sessions } = (await listed.json()) as { sessions: Array<{ id: string; current: boolean; ip: string }> };
    expect(sessions).toHaveLength(3);
    const phoneId = sessions.find((s) => s.ip === "192.0.2.31")!.id;
    const one = await viaA(
      new Request(`${BASE_URL}/auth/revoke-session`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${tablet}` },
        body: JSON.stringify({ sessionId: phoneId }),
      }),
      "192.0.2.33",
    );
    expect(await one.json()).toEqual({ success: true });
    expect(await (await session(viaB, phone)).json()).toBeNull();
    // B signs out everywhere else from the laptop's cookie: the tablet is refused on A at once.
    const others = await viaB(
      new Request(`${BASE_URL}/auth/revoke-other-sessions`, {
        method: "POST",
        headers: { cookie: laptop, origin: BASE_URL },
      }),
      "192.0.2.30",
    );
    expect(await others.json()).toEqual({ revoked: 1 });
    expect(await (await session(viaA, tablet)).json()).toBeNull();
    const still = await viaA(
      new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie: laptop } }),
      "192.0.2.30",
    );
    expect(((await still.json()) as { user: { email: string } } | null)?.user.email).toBe(email);
  });

  it("an OTP code sent by one instance signs in once on the other and is spent for both", async () => {
    const email = "otto@workers.example";
    const sent = await viaA(
      new Request(`${BASE_URL}/auth/email-otp/send-verification-otp`, json({ email, purpose: "sign-in" })),
      "192.0.2.11",
    );
    expect(sent.status).toBe(200);
    const otp = await codeSentTo(email);
    const first = await viaB(new Request(`${BASE_URL}/auth/sign-in/email-otp`, json({ email, otp })), "192.0.2.11");
    expect(first.status).toBe(200);
    const replay = await viaA(new Request(`${BASE_URL}/auth/sign-in/email-otp`, json({ email, otp })), "192.0.2.11");
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe("INVALID_OTP");
  });

  it("one per-IP budget across instances: 10 sign-in attempts spread over both, the 11th is limited on either", async () => {
    const attempt = (via: typeof viaA) =>
      via(
        new Request(`${BASE_URL}/auth/sign-in/email`, json({ email: "not-an-email", password: "no email" })),
        "198.51.100.90",
      );
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt(i % 2 === 0 ? viaA : viaB)).status);
    expect(statuses).toEqual(Array(10).fill(400));
    for (const via of [viaA, viaB]) {
      const limited = await attempt(via);
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { code: string }).code).toBe("RATE_LIMITED");
    }
  });

  it("lockout counts wrong passwords on both instances: 5 failures spread over both lock the account on either", async () => {
    const email = "lin@workers.example";
    await signUp(email, "192.0.2.20");
    // A fresh address per attempt: only the identifier lockout is in play, not the per-IP limit.
    for (let i = 0; i < 5; i++) {
      const wrong = await signIn(i % 2 === 0 ? viaA : viaB, email, "wrong password!", `192.0.2.${30 + i}`);
      expect(wrong.status).toBe(401);
    }
    for (const [via, ip] of [
      [viaA, "192.0.2.40"],
      [viaB, "192.0.2.41"],
    ] as const) {
      const locked = await signIn(via, email, "correct horse battery", ip);
      expect(locked.status).toBe(429);
      expect(((await locked.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
    }
  });
});
