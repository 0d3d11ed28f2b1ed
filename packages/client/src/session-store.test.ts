import { describe, expect, it } from "vitest";
import { createTestClock } from "@latchkey/core/internal";
import { BASE, server } from "../test/test-server.ts";
import { createLatchkeyClient, type SessionState } from "./index.ts";

describe("@latchkey/client", () => {
  it("the session store: the first subscriber fetches, sign-in and sign-out refetch, listeners see each change", async () => {
    // A clock that stands still: a JWT minted in the next second would differ, and the snapshot with it.
    const { auth } = server(createTestClock(Date.UTC(2026, 5, 1, 12, 0, 0)));
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
    const seen: SessionState[] = [];
    const next = () =>
      new Promise<SessionState>((resolve) => {
        const off = client.session.subscribe((s) => {
          off();
          resolve(s);
        });
      });
    expect(client.session.get()).toMatchObject({ data: null, isPending: true });
    const unsubscribe = client.session.subscribe((s) => seen.push(s));
    await client.session.refetch();
    expect(client.session.get()).toMatchObject({ data: null, isPending: false, error: null });

    const signedIn = next();
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    expect((await signedIn).data?.user.email).toBe("ada@example.com");
    expect(client.session.get().jwt).toMatch(/^ey/);
    const snapshot = client.session.get();
    await client.session.refetch();
    expect(client.session.get()).toBe(snapshot); // unchanged data keeps the same object (stable React snapshots)

    const signedOut = next();
    await client.signOut();
    expect((await signedOut).data).toBeNull();
    unsubscribe();
    expect(seen.map((s) => s.data?.user.email ?? null)).toEqual([null, "ada@example.com", null]);
  });

  describe("the previous user's JWT never outlives the session (review fix 16)", () => {
    const signedInClient = async () => {
      const { auth, store } = server();
      const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
      await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
      await client.session.refetch();
      expect(client.getJwt()).toMatch(/^ey/);
      expect(client.session.get().jwt).toMatch(/^ey/);
      const user = await store.users.findByEmail("ada@example.com");
      return { auth, store, client, userId: user!.id };
    };

    it("after sign-out the next user of the page gets no JWT from getJwt() or session.jwt", async () => {
      const { client } = await signedInClient();
      await client.signOut();
      expect(client.getJwt()).toBeNull();
      await client.session.refetch();
      expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    });

    it("after account deletion the JWT is gone", async () => {
      const { client } = await signedInClient();
      expect((await client.deleteAccount({ password: "correct horse battery" })).error).toBeNull();
      expect(client.getJwt()).toBeNull();
    });

    it("a session revoked elsewhere: get-session answering null clears the JWT", async () => {
      const { store, client, userId } = await signedInClient();
      await store.sessions.deleteByUser(userId);
      expect((await client.getSession()).data).toBeNull();
      expect(client.getJwt()).toBeNull();
      expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    });

    it("a session revoked elsewhere: any 401 clears the JWT and the session store follows", async () => {
      const { store, client, userId } = await signedInClient();
      await store.sessions.deleteByUser(userId);
      const refused = await client.listApiKeys({ limit: 5 });
      expect(refused.error?.status).toBe(401);
      expect(client.getJwt()).toBeNull();
      await client.session.refetch();
      expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    });
  });

  it("a sign-in that finishes while an older session request is under way still ends signed in", async () => {
    const { auth } = server();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: async (r) => {
        if (first && r.url.endsWith("/get-session")) {
          first = false;
          const answer = await auth.handler(r);
          await gate;
          return answer;
        }
        return auth.handler(r);
      },
    });
    const stale = client.session.refetch(); // answers "signed out", but only after the sign-in below
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const after = client.session.refetch();
    release();
    await stale;
    expect((await after).data?.user.email).toBe("ada@example.com");
    expect(client.session.get().data?.user.email).toBe("ada@example.com");
  });

  it("an app's own getSession() answered after sign-out does not put the previous user or their JWT back", async () => {
    const { auth } = server();
    let hold: Promise<void> | null = null;
    let release: () => void = () => undefined;
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: async (r) => {
        const answer = await auth.handler(r);
        if (hold && r.url.endsWith("/get-session")) {
          const gate = hold;
          hold = null;
          await gate;
        }
        return answer;
      },
    });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    await client.session.refetch();
    expect(client.session.get().data?.user.email).toBe("ada@example.com");
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const mine = client.getSession(); // the app's own call: answered "Ada, with a JWT", but only after sign-out
    expect((await client.signOut()).error).toBeNull();
    await client.session.refetch(); // the store knows: signed out
    expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    release();
    expect((await mine).data?.user.email).toBe("ada@example.com"); // its caller still gets what it asked for
    expect(client.session.get()).toMatchObject({ data: null, jwt: null });
    expect(client.getJwt()).toBeNull();
    expect(client.getBearerToken()).toBeNull();
  });

  it("sign-out forgets locally first: a failed sign-out request or a failed follow-up leaves no user, token or JWT", async () => {
    const { auth } = server();
    let offline: "sign-out" | "get-session" | null = null;
    const client = createLatchkeyClient({
      baseURL: `${BASE}/auth`,
      auth: "bearer",
      fetch: async (r) => {
        if (offline && r.url.endsWith(`/${offline}`)) throw new TypeError("Failed to fetch");
        return auth.handler(r);
      },
    });
    const signIn = async () => {
      await client.signUpEmail({ email: `ada${Math.random()}@example.com`, password: "correct horse battery" });
      await client.session.refetch();
      expect(client.session.get().data).not.toBeNull();
      expect(client.getJwt()).not.toBeNull();
    };
    await signIn();
    offline = "get-session";
    expect((await client.signOut()).error).toBeNull();
    await client.session.refetch();
    expect(client.session.get().data).toBeNull();
    expect(client.getJwt()).toBeNull();

    offline = null;
    await signIn();
    offline = "sign-out";
    expect((await client.signOut()).error?.code).toBe("NETWORK_ERROR");
    expect(client.getBearerToken()).toBeNull();
    expect(client.getJwt()).toBeNull();
    expect(client.session.get()).toMatchObject({ data: null, jwt: null });
  });
});
