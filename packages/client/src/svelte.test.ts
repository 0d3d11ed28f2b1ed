// @vitest-environment happy-dom
import { cleanup, render } from "@testing-library/svelte";
import { derived, get } from "svelte/store";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionState } from "./index.ts";
import { sessionStore } from "./svelte.ts";
import { countedClient } from "../test/counted-client.ts";
import SessionBadge from "../test/SessionBadge.svelte";

afterEach(() => cleanup());

/** Waits for the client's session store to settle, then for Svelte to apply what changed. */
async function settled(client: ReturnType<typeof countedClient>["client"]): Promise<void> {
  await client.session.refetch();
  await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("@latchkey/client/svelte sessionStore", () => {
  it("follows Svelte's store contract: the current value at once, each change, listening only while subscribed", async () => {
    const { store, client, counted, listening } = countedClient();
    const session = sessionStore(counted);
    expect(get(session)).toMatchObject({ data: null, isPending: true });
    // get() subscribed and unsubscribed: the client was asked once, and nobody listens now.
    expect(listening()).toBe(0);

    const seen: SessionState[] = [];
    const email = derived(session, (s) => s.data?.user.email ?? null);
    const emails: Array<string | null> = [];
    const off = session.subscribe((s) => seen.push(s));
    const offEmail = email.subscribe((e) => emails.push(e));
    expect(listening()).toBe(1); // one store start for both subscribers
    await client.session.refetch();
    expect(seen.at(-1)).toMatchObject({ data: null, isPending: false, error: null });

    expect(
      (await client.signUpEmail({ email: "ada@svelte.example", password: "correct horse battery" })).error,
    ).toBeNull();
    await client.session.refetch();
    expect(seen.at(-1)?.data?.user.email).toBe("ada@svelte.example");
    const user = await store.users.findByEmail("ada@svelte.example");
    expect(seen.at(-1)?.data?.user.id).toBe(user!.id);
    expect((await store.sessions.listByUser(user!.id)).length).toBe(1);

    expect((await client.signOut()).error).toBeNull();
    await client.session.refetch();
    expect(seen.at(-1)?.data).toBeNull();
    expect(await store.sessions.listByUser(user!.id)).toEqual([]);
    expect(emails).toEqual([null, "ada@svelte.example", null]);

    off();
    offEmail();
    expect(listening()).toBe(0);
  });

  it("a component reading $session (Testing Library) shows signed out, the user after sign-in, signed out after sign-out", async () => {
    const { client, counted, listening } = countedClient();
    await client.signUpEmail({ email: "bob@svelte.example", password: "correct horse battery" });
    await client.signOut();

    const session = sessionStore(counted);
    expect(listening()).toBe(0);
    const view = render(SessionBadge, { session });
    expect(listening()).toBe(1);
    await settled(client);
    expect(view.container.textContent).toBe("signed out");

    const wrong = await client.signInEmail({ email: "bob@svelte.example", password: "not the password" });
    expect(wrong.error?.code).toBe("INVALID_CREDENTIALS");
    await settled(client);
    expect(view.container.textContent).toBe("signed out");

    expect(
      (await client.signInEmail({ email: "bob@svelte.example", password: "correct horse battery" })).error,
    ).toBeNull();
    await settled(client);
    expect(view.container.textContent).toBe("bob@svelte.example");

    expect((await client.signOut()).error).toBeNull();
    await settled(client);
    expect(view.container.textContent).toBe("signed out");

    view.unmount();
    expect(listening()).toBe(0);
  });
});
