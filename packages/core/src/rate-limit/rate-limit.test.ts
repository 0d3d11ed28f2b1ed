import { describe, expect, it } from "vitest";
import { ipBucket } from "./rate-limit.ts";

describe("ipBucket", () => {
  it("keeps IPv4 and buckets IPv6 by /64 whatever the notation", () => {
    expect(ipBucket("203.0.113.9")).toBe("203.0.113.9");
    expect(ipBucket("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(ipBucket("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("2001:0DB8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("[2001:db8::1]")).toBe("2001:db8:0:0::/64");
    expect(ipBucket("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(ipBucket("::1")).toBe("0:0:0:0::/64");
  });
});
