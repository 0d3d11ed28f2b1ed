// @vitest-environment happy-dom
import { flushPromises, mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import { createSSRApp, defineComponent, h } from "vue";
import { renderToString } from "vue/server-renderer";
import type { LatchkeyClient } from "./index.ts";
import { countedClient as setup } from "../test/counted-client.ts";
import { useSession } from "./vue.ts";

const Header = (client: Pick<LatchkeyClient, "session">) =>
  defineComponent({
    setup() {
      // biome-ignore lint/correctness/useHookAtTopLevel: a Vue composable, called in setup() as Vue requires
      const session = useSession(client);
      return () =>
        h("span", session.value.isPending ? "…" : session.value.data ? session.value.data.user.email : "signed out");
    },
  });

describe("@latchkey/client/vue useSession", () => {
  it("a mounted component shows the session: signed out, signed in after sign-up, signed out after sign-out", async () => {
    const { store, client, counted, listening } = setup();
    const wrapper = mount(Header(counted));
    expect(listening()).toBe(1);
    await client.session.refetch();
    await flushPromises();
    expect(wrapper.text()).toBe("signed out");

    const up = await client.signUpEmail({ email: "ada@vue.example", password: "correct horse battery" });
    expect(up.error).toBeNull();
    await client.session.refetch();
    await flushPromises();
    expect(wrapper.text()).toBe("ada@vue.example");
    const user = await store.users.findByEmail("ada@vue.example");
    expect((await store.sessions.listByUser(user!.id)).length).toBe(1);

    expect((await client.signOut()).error).toBeNull();
    await client.session.refetch();
    await flushPromises();
    expect(wrapper.text()).toBe("signed out");
    expect(await store.sessions.listByUser(user!.id)).toEqual([]);

    // Unmounting stops listening: the client's store has no listener from the component any more.
    wrapper.unmount();
    expect(listening()).toBe(0);
  });

  it("a wrong password leaves the component signed out; the right one signs it in", async () => {
    const { client, counted } = setup();
    await client.signUpEmail({ email: "bob@vue.example", password: "correct horse battery" });
    await client.signOut();
    const wrapper = mount(Header(counted));
    await client.session.refetch();
    await flushPromises();
    const wrong = await client.signInEmail({ email: "bob@vue.example", password: "not the password" });
    expect(wrong.error?.code).toBe("INVALID_CREDENTIALS");
    await client.session.refetch();
    await flushPromises();
    expect(wrapper.text()).toBe("signed out");
    const right = await client.signInEmail({ email: "bob@vue.example", password: "correct horse battery" });
    expect(right.error).toBeNull();
    await client.session.refetch();
    await flushPromises();
    expect(wrapper.text()).toBe("bob@vue.example");
    wrapper.unmount();
  });

  it("server rendering neither subscribes nor fetches: the state stays pending", async () => {
    const { counted, listening, requests } = setup();
    const html = await renderToString(createSSRApp(Header(counted)));
    expect(html).toBe("<span>…</span>");
    expect(listening()).toBe(0);
    expect(requests()).toBe(0);
  });
});
